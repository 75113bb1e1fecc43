// The CoreMetricsProbe port: GET http://{address}/debug/vars on the core's loopback metrics listener, with one
// overall deadline (connect + answer + body) and a body cap. Never throws, never hangs.
import { request } from 'node:http';
import type { CoreMetricsProbe, CoreVarsResult } from '../../domain/ports/host.js';

export interface CoreVarsOptions {
  /** Overall deadline per reading. */
  timeoutMs?: number;
  /** Larger answers are refused (the expvar body lists every user's counters). */
  maxBytes?: number;
}

function splitAddress(address: string): { host: string; port: number } | null {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address);
  if (!m) return null;
  return { host: m[1] ?? m[2]!, port: Number(m[3]) };
}

export function fetchCoreVars(address: string, opts: CoreVarsOptions = {}): Promise<CoreVarsResult> {
  const timeoutMs = opts.timeoutMs ?? 1000;
  const maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
  const target = splitAddress(address);
  if (!target) return Promise.resolve({ ok: false, reason: `metrics address "${address}" is not host:port` });
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: CoreVarsResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const req = request(
      {
        host: target.host,
        port: target.port,
        path: '/debug/vars',
        method: 'GET',
        agent: false,
        headers: { accept: 'application/json' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          finish({ ok: false, reason: `metrics endpoint answered HTTP ${res.statusCode}` });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) finish({ ok: false, reason: `metrics answer larger than ${maxBytes} bytes` });
          else chunks.push(c);
        });
        res.on('end', () => {
          try {
            finish({ ok: true, vars: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch {
            finish({ ok: false, reason: 'metrics endpoint answered malformed JSON' });
          }
        });
        res.on('error', (err) => finish({ ok: false, reason: `metrics endpoint: ${err.message}` }));
      },
    );
    const timer = setTimeout(
      () => finish({ ok: false, reason: `metrics endpoint did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    timer.unref();
    req.on('error', (err) => finish({ ok: false, reason: `metrics endpoint unreachable: ${err.message}` }));
    req.end();
  });
}

export function createCoreVarsProbe(opts: CoreVarsOptions = {}): CoreMetricsProbe {
  return { fetchVars: (address) => fetchCoreVars(address, opts) };
}
