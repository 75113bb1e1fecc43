// Downloads through a local SOCKS5 proxy with curl (--socks5-hostname); reports the bytes received.
import { execFile } from 'node:child_process';

export interface Download {
  ok: boolean;
  bytes: number;
  error: string;
}

export function curlSocks(socksPort: number, url: string, timeoutSec = 10): Promise<Download> {
  return new Promise((resolve) => {
    execFile(
      'curl',
      [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{size_download}',
        '--max-time',
        String(timeoutSec),
        '--socks5-hostname',
        `127.0.0.1:${socksPort}`,
        url,
      ],
      { timeout: (timeoutSec + 5) * 1000 },
      (err, stdout, stderr) => {
        const bytes = Number(stdout.trim()) || 0;
        resolve({ ok: !err, bytes, error: err ? `${stderr.trim() || err.message}` : '' });
      },
    );
  });
}

/** Retries a download until it succeeds (a fresh client/core may need a moment), up to `timeoutMs`. */
export async function curlSocksEventually(socksPort: number, url: string, timeoutMs = 5000): Promise<Download> {
  const deadline = Date.now() + timeoutMs;
  let last: Download = { ok: false, bytes: 0, error: 'not tried' };
  while (Date.now() < deadline) {
    last = await curlSocks(socksPort, url, 5);
    if (last.ok) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  return last;
}
