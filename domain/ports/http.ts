// The one outbound HTTP client (DESIGN.md principle 9): every request the panel makes to the outside (core
// releases, geo files, Telegram, nodes…) goes through it. host-agent/guarded-fetch.ts implements it with
// timeouts, response size caps, and refusal of private and loopback targets unless allowed.

export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST' | 'HEAD' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Whole-request deadline in ms (connect, redirects and body). Default 15 s. */
  timeoutMs?: number;
  /** Largest accepted response body in bytes; a larger one fails the request. Default 16 MiB. */
  maxBytes?: number;
  /** Permit private, loopback and link-local targets (e.g. a node with allowPrivateAddress). Default false. */
  allowPrivate?: boolean;
  /** Redirects followed for GET/HEAD (each hop re-checked). Default 5; other methods never follow. */
  maxRedirects?: number;
  /**
   * How an https peer is trusted (nodes): `verify` the chain and name (the default), `pin` the SHA-256 of its public
   * key (`pinSha256`, base64; the chain is not checked), or `skip` any check. With this set, nothing is sent
   * before the peer passed, and the response (or the error) carries the peer's pin.
   */
  tls?: { mode: 'verify' | 'pin' | 'skip'; pinSha256?: string };
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** The final URL after redirects. */
  url: string;
  /** With `tls` on an https request: base64 SHA-256 of the peer's public key (SubjectPublicKeyInfo, DER). */
  tlsPin?: string;
}

/** Thrown for refused targets, timeouts, oversize bodies and network failures; the message is for operators. */
export class HttpFetchError extends Error {
  constructor(
    message: string,
    readonly reason: 'refused' | 'timeout' | 'too-large' | 'network' | 'bad-url' | 'tls',
    /** With `tls` on an https request that reached the TLS handshake: the peer's pin (see HttpResponse.tlsPin). */
    readonly tlsPin?: string,
  ) {
    super(message);
    this.name = 'HttpFetchError';
  }
}

export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
}

/** Multipart/form-data body builder for uploads (Telegram sendDocument…), runtime-neutral. */
export function multipartBody(
  fields: Record<string, string>,
  file: { field: string; fileName: string; contentType: string; data: Uint8Array },
  boundary = `----panel${Math.random().toString(16).slice(2)}${Math.random().toString(16).slice(2)}`,
): { body: Uint8Array; contentType: string } {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const quote = (s: string) => s.replace(/["\r\n\\]/g, '_');
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`),
    );
  }
  chunks.push(
    enc.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.field)}"; filename="${quote(file.fileName)}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
    ),
  );
  chunks.push(file.data);
  chunks.push(enc.encode(`\r\n--${boundary}--\r\n`));
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A runtime without outbound HTTP: every call fails with a clear message. */
export const noHttp: HttpClient = {
  request: async () => {
    throw new HttpFetchError('outbound HTTP is not configured in this process', 'network');
  },
};
