// testOutbound: `tcp` dials the outbound's server; the full probe starts a temporary core with an HTTP inbound
// on a free loopback port and that outbound (plus its dialerProxy chain), then fetches the test URL through it.
import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { lookup } from 'node:dns/promises';
import { waitForPort } from './net.js';
import { isPublicAddress } from '../../domain/shared/public-address.js';
import type { OutboundProbeInput, OutboundProbeResult } from '../../domain/ports/core.js';

type Obj = Record<string, any>;
const isObject = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const TIMEOUT_MS = 10_000;

/** The server an outbound dials: vnext[0] / servers[0] / settings.address, or null (freedom, blackhole…). */
export function serverOf(outbound: Obj): { host: string; port: number } | null {
  const s = isObject(outbound.settings) ? outbound.settings : {};
  const first =
    (Array.isArray(s.vnext) && s.vnext[0]) ||
    (Array.isArray(s.servers) && s.servers[0]) ||
    (Array.isArray(s.peers) && s.peers[0]) ||
    s;
  if (!isObject(first)) return null;
  let host = typeof first.address === 'string' ? first.address : '';
  let port = Number(first.port);
  if (!host && typeof first.endpoint === 'string') {
    const m = /^\[?([^\]]+)\]?:(\d+)$/.exec(first.endpoint);
    if (m) {
      host = m[1]!;
      port = Number(m[2]);
    }
  }
  return host && Number.isInteger(port) && port > 0 && port < 65536 ? { host, port } : null;
}

/** The outbound and every outbound it reaches through `streamSettings.sockopt.dialerProxy` / `proxySettings.tag`. */
export function resolveChain(outbound: Obj, all: Obj[]): Obj[] {
  const byTag = new Map(all.filter((o) => isObject(o) && typeof o.tag === 'string').map((o) => [o.tag as string, o]));
  const out: Obj[] = [outbound];
  const seen = new Set<string>([String(outbound.tag ?? '')]);
  let cur: Obj | undefined = outbound;
  while (cur) {
    const next: unknown = cur.streamSettings?.sockopt?.dialerProxy ?? cur.proxySettings?.tag;
    if (typeof next !== 'string' || !next) break;
    if (seen.has(next)) throw new Error(`dialerProxy chain loops at "${next}"`);
    const o = byTag.get(next);
    if (!o) throw new Error(`dialerProxy "${next}" is not among allOutbounds`);
    seen.add(next);
    out.push(o);
    cur = o;
  }
  return out;
}

/**
 * The address to dial for `host`, refusing private, loopback and reserved targets unless allowed (the guarded
 * fetch's rule), so the probe cannot scan the panel's own host or network. Every resolved address is checked.
 */
async function vetTarget(host: string, allowPrivate: boolean): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
  } catch (err) {
    throw new Error(`cannot resolve ${bare}: ${(err as Error).message}`, { cause: err });
  }
  if (addresses.length === 0) throw new Error(`cannot resolve ${bare}`);
  const bad = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a));
  if (bad !== undefined) {
    throw new Error(
      `refused ${bare}: ${bad} is a private, loopback or reserved address (set allowPrivate to test an outbound on a private network)`,
    );
  }
  return addresses[0]!;
}

function dial(host: string, address: string, port: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const sock = connect({ host: address, port, timeout: TIMEOUT_MS });
    sock.once('connect', () => {
      sock.destroy();
      resolve(Math.round(performance.now() - t0));
    });
    sock.once('timeout', () => {
      sock.destroy();
      reject(new Error(`dial ${host}:${port}: timed out`));
    });
    sock.once('error', (e) => {
      sock.destroy();
      reject(new Error(`dial ${host}:${port}: ${e.message}`));
    });
  });
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** GET `url` through an HTTP proxy on 127.0.0.1:proxyPort; resolves with the time to the response headers. */
function fetchThroughProxy(proxyPort: number, url: URL): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), TIMEOUT_MS);
    const done = (err: Error | null) => {
      clearTimeout(timer);
      err ? reject(err) : resolve(Math.round(performance.now() - t0));
    };
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    if (url.protocol === 'http:') {
      const req = httpRequest(
        { host: '127.0.0.1', port: proxyPort, method: 'GET', path: url.href, headers: { host: url.host } },
        (res) => {
          res.resume();
          // The core's HTTP inbound answers 503 with Proxy-Connection and no body when the outbound failed.
          if (
            res.statusCode === 503 &&
            res.headers['proxy-connection'] !== undefined &&
            res.headers['content-length'] === '0'
          ) {
            done(new Error('the outbound could not reach the test URL'));
          } else done(null);
        },
      );
      req.once('error', (e) => done(e));
      req.end();
      return;
    }
    const req = httpRequest({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: `${url.hostname}:${port}` });
    req.once('connect', (res, socket: Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return done(new Error(`CONNECT answered ${res.statusCode}`));
      }
      const tls = tlsConnect({ socket, servername: url.hostname }, () => {
        tls.write(`HEAD ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
      });
      tls.once('data', () => {
        tls.destroy();
        done(null);
      });
      tls.once('error', (e) => done(e));
    });
    req.once('error', (e) => done(e));
    req.end();
  });
}

export async function probeOutbound(
  input: OutboundProbeInput,
  bin: string | null,
  env: NodeJS.ProcessEnv,
): Promise<OutboundProbeResult> {
  try {
    const chain = resolveChain(input.outbound, input.allOutbounds);
    // The first hop dialled from this host is the last outbound of the chain.
    const target = [...chain]
      .reverse()
      .map(serverOf)
      .find((s) => s !== null);
    const address = target ? await vetTarget(target.host, input.allowPrivate) : null;
    if (input.mode === 'tcp') {
      if (!target || address === null)
        return { success: false, delay: 0, error: 'the outbound has no server address to dial' };
      return { success: true, delay: await dial(target.host, address, target.port), error: '' };
    }
    if (!bin) return { success: false, delay: 0, error: 'the full probe needs a core binary (use mode=tcp)' };
    const url = new URL(input.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`test URL must be http(s): ${input.url}`);
    const port = await freeLoopbackPort();
    const outbounds = chain.map((o, i) => ({ ...o, tag: i === 0 ? 'probe-out' : o.tag }));
    // References to the first outbound's original tag inside the chain are not expected (it would be a loop).
    const config = {
      log: { loglevel: 'warning', access: 'none' },
      inbounds: [{ tag: 'probe-in', listen: '127.0.0.1', port, protocol: 'http', settings: {} }],
      outbounds,
      routing: { rules: [{ type: 'field', inboundTag: ['probe-in'], outboundTag: 'probe-out' }] },
    };
    const child = spawn(bin, ['-config', 'stdin:'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stdin.end(JSON.stringify(config));
    let exited = false;
    child.once('exit', () => (exited = true));
    try {
      if (!(await waitForPort(port, 5000, () => !exited))) {
        return {
          success: false,
          delay: 0,
          error: `temporary core did not start: ${output.trim().split('\n').slice(-3).join(' ')}`,
        };
      }
      const delay = await fetchThroughProxy(port, url);
      return { success: true, delay, error: '' };
    } finally {
      if (!exited) child.kill('SIGKILL');
    }
  } catch (err) {
    return { success: false, delay: 0, error: err instanceof Error ? err.message : String(err) };
  }
}
