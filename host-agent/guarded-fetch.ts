// The guarded outbound HTTP client (domain/ports/http.ts): http/https only, a whole-request deadline, a cap on
// the response body, manual redirects (each hop re-checked), and refusal of private, loopback, link-local and
// other non-public targets. The check runs on the addresses DNS actually returns and the connection is made to
// the checked address (no second lookup), so a name that resolves to 127.0.0.1 is refused too.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { HttpFetchError, type HttpClient, type HttpRequest, type HttpResponse } from '../domain/ports/http.js';
import { ipInCidrs, parseCidrList } from '../domain/auth/cidr.js';

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const USER_AGENT = 'proxy-panel';

/** Targets refused unless allowed: loopback, private, CGNAT, link-local, multicast, reserved, documentation… */
const NON_PUBLIC = parseCidrList([
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
  '::/128', '::1/128', '64:ff9b:1::/48', '100::/64', '2001:db8::/32', 'fc00::/7', 'fe80::/10', 'ff00::/8',
].join(',')).cidrs;

export function isPublicAddress(ip: string): boolean {
  return isIP(ip) !== 0 && !ipInCidrs(ip, NON_PUBLIC);
}

export interface GuardedFetchOptions {
  /** Allow non-public targets for every request (tests against local fake servers; never in production). */
  allowPrivate?: boolean;
  /** DNS resolution (tests may inject). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export function createGuardedFetch(opts: GuardedFetchOptions = {}): HttpClient {
  const resolve = opts.resolve ?? ((host: string) => lookup(host, { all: true, verbatim: true }));

  async function vet(url: URL, allowPrivate: boolean): Promise<{ address: string; family: number }> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HttpFetchError(`refused ${url.protocol} URL: only http and https`, 'bad-url');
    if (url.username || url.password) throw new HttpFetchError('refused URL with credentials', 'bad-url');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addrs: { address: string; family: number }[];
    if (isIP(host)) addrs = [{ address: host, family: isIP(host) }];
    else {
      try {
        addrs = await resolve(host);
      } catch (err) {
        throw new HttpFetchError(`cannot resolve ${host}: ${(err as Error).message}`, 'network');
      }
    }
    if (addrs.length === 0) throw new HttpFetchError(`cannot resolve ${host}`, 'network');
    if (!allowPrivate) {
      const bad = addrs.find((a) => !isPublicAddress(a.address));
      if (bad) throw new HttpFetchError(`refused ${host}: ${bad.address} is a private, loopback or reserved address`, 'refused');
    }
    return addrs[0]!;
  }

  function once(url: URL, target: { address: string; family: number }, req: HttpRequest, deadline: number, maxBytes: number): Promise<HttpResponse> {
    return new Promise((resolveP, reject) => {
      const pinned: LookupFunction = (_host, options, cb) => {
        if ((options as { all?: boolean }).all) (cb as any)(null, [target]);
        else cb(null, target.address, target.family);
      };
      const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...req.headers };
      const body = typeof req.body === 'string' ? new TextEncoder().encode(req.body) : req.body;
      if (body) headers['content-length'] = String(body.length);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const r = send(url, { method: req.method ?? 'GET', headers, lookup: pinned, servername: isIP(url.hostname) ? undefined : url.hostname });
      const remaining = deadline - Date.now();
      const timer = setTimeout(() => r.destroy(new HttpFetchError(`request to ${url.host} timed out`, 'timeout')), Math.max(1, remaining));
      // Settled once: a body cut short by the size cap must neither resolve (empty) nor throw uncaught.
      let settled = false;
      const fail = (err: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(err instanceof HttpFetchError ? err : new HttpFetchError(`request to ${url.host} failed: ${(err as Error).message}`, 'network'));
      };
      r.on('error', fail);
      r.on('response', (res: IncomingMessage) => {
        res.on('error', fail);
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          r.destroy(new HttpFetchError(`response from ${url.host} is larger than ${maxBytes} bytes`, 'too-large'));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            fail(new HttpFetchError(`response from ${url.host} is larger than ${maxBytes} bytes`, 'too-large'));
            res.destroy();
            r.destroy();
            return;
          }
          chunks.push(c);
        });
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          const buf = Buffer.concat(chunks);
          resolveP({ status: res.statusCode ?? 0, headers: h, body: new Uint8Array(buf.buffer, buf.byteOffset, buf.length), url: url.toString() });
        });
      });
      r.end(body ? Buffer.from(body) : undefined);
    });
  }

  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      const deadline = Date.now() + (req.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
      const allowPrivate = !!(opts.allowPrivate || req.allowPrivate);
      const method = req.method ?? 'GET';
      let redirects = method === 'GET' || method === 'HEAD' ? (req.maxRedirects ?? 5) : 0;
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        throw new HttpFetchError(`not a URL: ${req.url}`, 'bad-url');
      }
      const origin = url.origin;
      let hop = req;
      for (;;) {
        if (Date.now() >= deadline) throw new HttpFetchError(`request to ${url.host} timed out`, 'timeout');
        // Credentials are meant for the first origin only: never forward them to where a redirect points.
        if (url.origin !== origin && hop === req) hop = { ...req, headers: withoutCredentials(req.headers) };
        const target = await vet(url, allowPrivate);
        const res = await once(url, target, hop, deadline, maxBytes);
        const location = res.headers.location;
        if (![301, 302, 303, 307, 308].includes(res.status) || !location || redirects <= 0) return res;
        redirects--;
        try {
          url = new URL(location, url);
        } catch {
          throw new HttpFetchError(`bad redirect from ${url.host}`, 'bad-url');
        }
      }
    },
  };
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.has(k.toLowerCase())));
}
