// The core's access log: tailed between traffic ticks and parsed into (email, source IP) observations for the
// client-IP records, plus the IP-limit log that a firewall tool such as fail2ban watches.
import { appendFile, open, stat } from 'node:fs/promises';
import type { AccessLogSource, IpLimitLog } from '../domain/ports/traffic-repo.js';
import type { AccessObservation } from '../domain/traffic/ip-limit.js';

/** File names in the data directory. */
export const ACCESS_LOG_FILE = 'access.log';
export const IP_LIMIT_LOG_FILE = 'ip-limit.log';

/** At most this much of the log is read per call (the rest on the next call). */
const MAX_READ_BYTES = 8 * 1024 * 1024;

// v2ray:  2026/11/22 01:48:47 127.0.0.1:43936 accepted tcp:127.0.0.1:18080 [direct] email: alice@x
// Xray:   2026/11/22 01:48:47.123456 from 127.0.0.1:43936 accepted tcp:example.com:443 [in-443 -> direct] email:
// alice@x
// The source may carry a network prefix (tcp:/udp:) and IPv6 sources are bracketed ([2001:db8::1]:443).
const LINE =
  /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?\s+(?:from\s+)?(?:(?:tcp|udp):)?(\S+)\s+accepted\s.*?\semail:\s*(\S+)\s*$/;

/** One access-log line → the client's email and source IP; null for anything else (rejected, no email, noise). */
export function parseAccessLine(line: string): AccessObservation | null {
  const m = LINE.exec(line);
  if (!m) return null;
  const source = m[1]!;
  const email = m[2]!;
  let ip: string;
  if (source.startsWith('[')) {
    const end = source.indexOf(']');
    if (end < 0) return null;
    ip = source.slice(1, end);
  } else {
    const colon = source.lastIndexOf(':');
    ip = colon > 0 ? source.slice(0, colon) : source;
  }
  if (!ip || !/^[0-9a-fA-F:.]+$/.test(ip)) return null;
  return { email, ip };
}

/**
 * Follows a log file by path: reads what was appended since the previous call, survives truncation and
 * replacement (a new inode or a smaller size starts over from the beginning). A file that already exists at
 * the first call is read from its end (older lines are not current); one that appears later from its start.
 */
export class AccessLogTail implements AccessLogSource {
  private ino: number | null = null;
  private offset = 0;
  private partial = '';
  private first = true;
  /** The last bytes read (up to 64), checked on the next read to notice a file truncated and regrown. */
  private seen: Buffer = Buffer.alloc(0);
  private mtimeMs = 0;

  constructor(private path: () => string | undefined) {}

  async read(): Promise<AccessObservation[]> {
    return (await this.readLines()).map(parseAccessLine).filter((o): o is AccessObservation => o !== null);
  }

  async readLines(): Promise<string[]> {
    const path = this.path();
    const first = this.first;
    this.first = false;
    if (!path) {
      this.ino = null;
      return [];
    }
    let st;
    try {
      st = await stat(path);
    } catch {
      this.ino = null;
      return [];
    }
    const restart = (offset: number) => {
      this.ino = st.ino;
      this.offset = offset;
      this.partial = '';
      this.seen = Buffer.alloc(0);
    };
    if (this.ino !== st.ino || st.size < this.offset) restart(first ? st.size : 0);
    if (st.size <= this.offset && st.mtimeMs === this.mtimeMs) return [];
    this.mtimeMs = st.mtimeMs;
    const fh = await open(path, 'r');
    let text: string;
    try {
      if (this.seen.length > 0) {
        const check = Buffer.alloc(this.seen.length);
        await fh.read(check, 0, check.length, this.offset - this.seen.length);
        if (!check.equals(this.seen)) restart(0); // truncated and written again past our offset
      }
      const length = Math.min(st.size - this.offset, MAX_READ_BYTES);
      if (length <= 0) return [];
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, this.offset);
      this.offset += bytesRead;
      const got = buf.subarray(0, bytesRead);
      this.seen = Buffer.from(Buffer.concat([this.seen, got]).subarray(-64));
      text = got.toString('utf8');
    } finally {
      await fh.close();
    }
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    if (this.partial.length > 64 * 1024) this.partial = ''; // a runaway line without newline: drop it
    return parts.map((l) => l.replace(/\r$/, '')).filter((l) => l.length > 0);
  }
}

/** Appends the IP-limit lines to a file (created on first write, mode 0600). */
export class FileIpLimitLog implements IpLimitLog {
  constructor(readonly path: string) {}
  async append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    await appendFile(this.path, `${lines.join('\n')}\n`, { mode: 0o600 });
  }
}
