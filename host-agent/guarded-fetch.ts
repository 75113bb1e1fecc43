// The guarded outbound HTTP client (domain/ports/http.ts): http/https only, a whole-request deadline, a cap on
// the response body, manual redirects (each hop re-checked), and refusal of private, loopback, link-local and
// other non-public targets. The check runs on the addresses DNS actually returns and the connection is made to
// the checked address (no second lookup), so a name that resolves to 127.0.0.1 is refused too.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { HttpFetchError, type HttpClient, type HttpRequest, type HttpResponse } from '../domain/ports/http.js';
import { isPublicAddress } from '../domain/shared/public-address.js';

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const USER_AGENT = 'proxy-panel';

// Which targets are refused (loopback, private, link-local, reserved, and IPv6 forms embedding them) is one
// domain rule shared with the outbound test's dial.
export { isPublicAddress };

export interface GuardedFetchOptions {
  /** Allow non-public targets for every request (tests against local fake servers; never in production). */
  allowPrivate?: boolean;
  /** DNS resolution (tests may inject). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export function createGuardedFetch(opts: GuardedFetchOptions = {}): HttpClient {
  const resolve = opts.resolve ?? ((host: string) => lookup(host, { all: true, verbatim: true }));

  async function vet(url: URL, allowPrivate: boolean): Promise<{ address: string; family: number }> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new HttpFetchError(`refused ${url.protocol} URL: only http and https`, 'bad-url');
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
      if (bad)
        throw new HttpFetchError(
          `refused ${host}: ${bad.address} is a private, loopback or reserved address`,
          'refused',
        );
    }
    return addrs[0]!;
  }

  /**
   * The TLS connection of a request with `tls`, made and checked before a byte of the request is written: the
   * handshake never fails on trust (rejectUnauthorized off), the check is ours — Node's own verdict on chain and
   * name for `verify`, the public key's hash for `pin`, nothing for `skip`.
   */
  function trustedSocket(
    url: URL,
    target: { address: string; family: number },
    tls: NonNullable<HttpRequest['tls']>,
    deadline: number,
  ): Promise<{ socket: TLSSocket; pin: string }> {
    return new Promise((resolveP, reject) => {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const socket = tlsConnect({
        host: target.address,
        port: Number(url.port || 443),
        servername: isIP(host) ? undefined : host,
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
        // Node checks the name against `servername`, or the host when there is none: the name we asked for.
        checkServerIdentity: (_h, cert) => checkServerIdentity(host, cert),
      });
      const timer = setTimeout(
        () => socket.destroy(new HttpFetchError(`TLS handshake with ${url.host} timed out`, 'timeout')),
        Math.max(1, deadline - Date.now()),
      );
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(
          err instanceof HttpFetchError
            ? err
            : new HttpFetchError(`TLS connection to ${url.host} failed: ${err.message}`, 'network'),
        );
      });
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        const cert = socket.getPeerX509Certificate();
        const pin = cert
          ? createHash('sha256')
              .update(cert.publicKey.export({ type: 'spki', format: 'der' }))
              .digest('base64')
          : '';
        let problem = '';
        if (tls.mode === 'verify' && !socket.authorized) {
          problem = `the certificate of ${url.host} is not trusted (${String(socket.authorizationError)}); pin its key sha256/${pin} or fix the certificate`;
        } else if (tls.mode === 'pin' && (!pin || pin !== tls.pinSha256)) {
          problem = `the certificate key of ${url.host} changed: pinned sha256/${tls.pinSha256 ?? ''}, presented sha256/${pin}; nothing was sent`;
        }
        if (problem) {
          socket.destroy();
          reject(new HttpFetchError(problem, 'tls', pin));
          return;
        }
        resolveP({ socket, pin });
      });
    });
  }

  async function once(
    url: URL,
    target: { address: string; family: number },
    req: HttpRequest,
    deadline: number,
    maxBytes: number,
  ): Promise<HttpResponse> {
    const checked = url.protocol === 'https:' && req.tls ? await trustedSocket(url, target, req.tls, deadline) : null;
    return new Promise((resolveP, reject) => {
      const pinned: LookupFunction = (_host, options, cb) => {
        if ((options as { all?: boolean }).all) (cb as any)(null, [target]);
        else cb(null, target.address, target.family);
      };
      const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...req.headers };
      const body = typeof req.body === 'string' ? new TextEncoder().encode(req.body) : req.body;
      if (body) headers['content-length'] = String(body.length);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const r = checked
        ? httpsRequest(url, { method: req.method ?? 'GET', headers, createConnection: () => checked.socket }) // no agent: the checked socket, used once
        : send(url, {
            method: req.method ?? 'GET',
            headers,
            lookup: pinned,
            servername: isIP(url.hostname) ? undefined : url.hostname,
          });
      const remaining = deadline - Date.now();
      const timer = setTimeout(
        () => r.destroy(new HttpFetchError(`request to ${url.host} timed out`, 'timeout')),
        Math.max(1, remaining),
      );
      // Settled once: a body cut short by the size cap must neither resolve (empty) nor throw uncaught.
      let settled = false;
      const fail = (err: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(
          err instanceof HttpFetchError
            ? err
            : new HttpFetchError(`request to ${url.host} failed: ${(err as Error).message}`, 'network', checked?.pin),
        );
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
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          const buf = Buffer.concat(chunks);
          resolveP({
            status: res.statusCode ?? 0,
            headers: h,
            body: new Uint8Array(buf.buffer, buf.byteOffset, buf.length),
            url: url.toString(),
            ...(checked ? { tlsPin: checked.pin } : {}),
          });
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
