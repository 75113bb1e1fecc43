// Talking to a remote panel of the same kind through the guarded HTTP port: the status probe and the client API
// calls the node pusher needs. Every call carries `Authorization: Bearer {apiToken}`; no message built here ever
// contains the token.
import { HttpFetchError, type HttpClient, type HttpResponse } from '../ports/http.js';
import type { NodeRecord, ProbeResult } from './model.js';
import { normaliseBasePath } from './model.js';

/** Deadline of a probe (manual or heartbeat). */
export const PROBE_TIMEOUT_MS = 6000;
/** Largest status answer accepted (a status snapshot is well under 4 KiB). */
export const PROBE_MAX_BYTES = 256 * 1024;
/** Deadline and size cap of client API calls; client lists of big panels can be several MiB. */
export const API_TIMEOUT_MS = 15_000;
export const LIST_MAX_BYTES = 64 * 1024 * 1024;
export const API_MAX_BYTES = 1024 * 1024;

const responseText = (r: HttpResponse): string => new TextDecoder().decode(r.body);

export type Target = Pick<
  NodeRecord,
  'scheme' | 'address' | 'port' | 'basePath' | 'apiToken' | 'allowPrivateAddress' | 'tlsMode' | 'tlsPin'
>;

/** The trust of an https node for the HTTP port (http: none). */
export const tlsOf = (n: Target) => (n.scheme === 'https' ? { mode: n.tlsMode, pinSha256: n.tlsPin } : undefined);

export function nodeUrl(n: Target, path: string): string {
  const host = n.address.includes(':') ? `[${n.address}]` : n.address;
  const base = normaliseBasePath(n.basePath) ?? '/';
  return `${n.scheme}://${host}:${n.port}${base}${path.replace(/^\//, '')}`;
}

function headers(n: Target, json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' };
  if (n.apiToken) h.authorization = `Bearer ${n.apiToken}`;
  if (json) h['content-type'] = 'application/json';
  return h;
}

/** A remote call that reached the node but did not succeed (HTTP error, success=false, unreadable answer). */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly httpStatus = 0,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

const num = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : 0;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const round2 = (v: number): number => Math.round(v * 100) / 100;

function httpProblem(status: number): string {
  if (status === 401 || status === 403) return `HTTP ${status} from the remote panel: the apiToken was rejected`;
  if (status === 404) return 'HTTP 404 from the remote panel: wrong basePath, or the apiToken was rejected';
  return `HTTP ${status} from the remote panel`;
}

/** Parses the envelope `{success, msg, obj}`; throws RemoteError when the answer is not a successful one. */
export function readEnvelope(res: HttpResponse): unknown {
  if (res.status !== 200) throw new RemoteError(httpProblem(res.status), res.status);
  let body: unknown;
  try {
    body = JSON.parse(responseText(res));
  } catch {
    throw new RemoteError(
      'the remote panel did not answer with JSON (is this a panel? check scheme, port and basePath)',
      res.status,
    );
  }
  if (!body || typeof body !== 'object' || typeof (body as { success?: unknown }).success !== 'boolean') {
    throw new RemoteError('the remote answer is not a panel envelope {success, msg, obj}', res.status);
  }
  const env = body as { success: boolean; msg?: unknown; obj?: unknown };
  if (!env.success)
    throw new RemoteError(`the remote panel refused: ${str(env.msg).slice(0, 300) || 'success=false'}`, res.status);
  return env.obj;
}

/**
 * Health figures from a remote status snapshot (ours: core.version; the reference's: xray.version; uptime when given).
 */
export function parseStatus(obj: unknown): Omit<ProbeResult, 'status' | 'latencyMs' | 'error' | 'tlsPin'> {
  if (!obj || typeof obj !== 'object') throw new RemoteError('the remote status answer has no status object');
  const o = obj as Record<string, any>;
  const mem = o.mem && typeof o.mem === 'object' ? o.mem : {};
  const memTotal = num(mem.total);
  const core = (
    o.core && typeof o.core === 'object' ? o.core : o.xray && typeof o.xray === 'object' ? o.xray : {}
  ) as Record<string, unknown>;
  const cpu = num(o.cpu);
  return {
    cpuPct: round2(Math.min(Math.max(cpu, 0), 100)),
    memPct: memTotal > 0 ? round2(Math.min(Math.max((num(mem.current) * 100) / memTotal, 0), 100)) : 0,
    coreVersion: str(core.version).slice(0, 64),
    panelVersion: str(o.panelVersion).slice(0, 64),
    uptimeSecs: Math.max(0, Math.floor(num(o.uptime ?? o.uptimeSecs ?? o.appUptime))),
  };
}

/** Probes `GET {scheme}://{address}:{port}{basePath}panel/api/server/status`; never throws. */
export async function probeNode(http: HttpClient, n: Target): Promise<ProbeResult> {
  const empty = { latencyMs: 0, coreVersion: '', panelVersion: '', cpuPct: 0, memPct: 0, uptimeSecs: 0, tlsPin: '' };
  let res: HttpResponse;
  const started = performance.now();
  try {
    // No redirects: the Bearer token must never follow a redirect to another host.
    res = await http.request({
      url: nodeUrl(n, 'panel/api/server/status'),
      method: 'GET',
      headers: headers(n, false),
      timeoutMs: PROBE_TIMEOUT_MS,
      maxBytes: PROBE_MAX_BYTES,
      allowPrivate: n.allowPrivateAddress,
      maxRedirects: 0,
      tls: tlsOf(n),
    });
  } catch (err) {
    const e =
      err instanceof HttpFetchError ? err : new HttpFetchError(String((err as Error)?.message ?? err), 'network');
    // It answered but too much, or with a certificate we do not trust: a misbehaving node, not an unreachable one.
    const status = e.reason === 'too-large' || e.reason === 'tls' ? 'error' : 'offline';
    return { status, ...empty, tlsPin: e.tlsPin ?? '', error: e.message };
  }
  const latencyMs = Math.max(1, Math.round(performance.now() - started));
  try {
    const figures = parseStatus(readEnvelope(res));
    return { status: 'online', latencyMs, ...figures, error: '', tlsPin: res.tlsPin ?? '' };
  } catch (err) {
    return {
      status: 'error',
      ...empty,
      latencyMs,
      tlsPin: res.tlsPin ?? '',
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

// ---- the client API of a remote panel (for the node pusher)
// -----------------------------------------------------------

export interface RemoteInbound {
  id: number;
  tag: string;
}
/** A client as the node lists it: its fields, the node's inbound ids and the node's counters. */
export interface RemoteClient {
  email: string;
  inboundIds: number[];
  fields: Record<string, unknown>;
  up: number;
  down: number;
  lastOnline: number;
}

const inboundRef = (obj: unknown, what: string): RemoteInbound => {
  const o = obj as { id?: unknown; tag?: unknown } | null;
  if (!o || typeof o.id !== 'number' || typeof o.tag !== 'string')
    throw new RemoteError(`${what}: the answer has no inbound id and tag`);
  return { id: o.id, tag: o.tag };
};

export class RemotePanel {
  constructor(
    private http: HttpClient,
    private n: Target,
  ) {}

  private async call(method: 'GET' | 'POST', path: string, body?: unknown, maxBytes = API_MAX_BYTES): Promise<unknown> {
    const res = await this.http.request({
      url: nodeUrl(this.n, path),
      method,
      headers: headers(this.n, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: API_TIMEOUT_MS,
      maxBytes,
      allowPrivate: this.n.allowPrivateAddress,
      maxRedirects: 0,
      tls: tlsOf(this.n),
    });
    return readEnvelope(res);
  }

  /** The node's inbounds (ids and tags; the slim list, so clients are not sent in full). */
  async inbounds(): Promise<RemoteInbound[]> {
    const obj = await this.call('GET', 'panel/api/inbounds/list/slim', undefined, LIST_MAX_BYTES);
    if (!Array.isArray(obj)) throw new RemoteError('inbounds/list/slim: expected an array');
    return obj
      .filter((i) => i && typeof i.id === 'number' && typeof i.tag === 'string')
      .map((i) => ({ id: i.id, tag: i.tag }));
  }

  async addInbound(inbound: Record<string, unknown>): Promise<RemoteInbound> {
    return inboundRef(await this.call('POST', 'panel/api/inbounds/add', inbound), 'inbounds/add');
  }

  async updateInbound(id: number, inbound: Record<string, unknown>): Promise<RemoteInbound> {
    return inboundRef(await this.call('POST', `panel/api/inbounds/update/${id}`, inbound), 'inbounds/update');
  }

  async delInbound(id: number): Promise<void> {
    await this.call('POST', `panel/api/inbounds/del/${id}`);
  }

  async clients(): Promise<RemoteClient[]> {
    const obj = await this.call('GET', 'panel/api/clients/list', undefined, LIST_MAX_BYTES);
    if (!Array.isArray(obj)) throw new RemoteError('clients/list: expected an array');
    return obj
      .filter((c) => c && typeof c.email === 'string')
      .map((c) => {
        const t = c.traffic && typeof c.traffic === 'object' ? c.traffic : c;
        return {
          email: c.email as string,
          inboundIds: Array.isArray(c.inboundIds) ? c.inboundIds.filter((x: unknown) => typeof x === 'number') : [],
          fields: c as Record<string, unknown>,
          up: num(t.up),
          down: num(t.down),
          lastOnline: num(t.lastOnline),
        };
      });
  }

  /** The node's inbound ids (the picker projection: no clients in it, small whatever the node's size). */
  async inboundIds(): Promise<Set<number>> {
    const obj = await this.call('GET', 'panel/api/inbounds/options');
    if (!Array.isArray(obj)) throw new RemoteError('inbounds/options: expected an array');
    return new Set(obj.filter((i) => i && typeof i.id === 'number').map((i) => i.id as number));
  }

  /** One client as clients() lists it, or null when the node does not have it. */
  async client(email: string): Promise<RemoteClient | null> {
    let obj: unknown;
    try {
      obj = await this.call('GET', `panel/api/clients/get/${encodeURIComponent(email)}`);
    } catch (err) {
      if (err instanceof RemoteError && err.httpStatus === 200 && /not found/i.test(err.message)) return null;
      throw err;
    }
    const o = obj as { client?: Record<string, any>; inboundIds?: unknown } | null;
    if (!o?.client || typeof o.client.email !== 'string')
      throw new RemoteError(`clients/get/${email}: the answer has no client`);
    const t = o.client.traffic && typeof o.client.traffic === 'object' ? o.client.traffic : o.client;
    return {
      email: o.client.email,
      inboundIds: Array.isArray(o.inboundIds)
        ? o.inboundIds.filter((x: unknown): x is number => typeof x === 'number')
        : [],
      fields: o.client,
      up: num(t.up),
      down: num(t.down),
      lastOnline: num(t.lastOnline),
    };
  }

  /** Emails the node sees connected now. */
  async onlines(): Promise<string[]> {
    const obj = await this.call('POST', 'panel/api/clients/onlines');
    return Array.isArray(obj) ? obj.filter((e): e is string => typeof e === 'string') : [];
  }

  /** The node's recorded IPs of one client ("IP (YYYY-MM-DD HH:MM:SS UTC)" or a bare IP). */
  async ips(email: string): Promise<string[]> {
    const obj = await this.call('POST', `panel/api/clients/ips/${encodeURIComponent(email)}`);
    return Array.isArray(obj) ? obj.filter((e): e is string => typeof e === 'string') : [];
  }

  bulkResetTraffic(emails: string[]) {
    return this.call('POST', 'panel/api/clients/bulkResetTraffic', { emails });
  }

  add(client: Record<string, unknown>, inboundIds: number[]) {
    return this.call('POST', 'panel/api/clients/add', { client, inboundIds });
  }

  /** spec: /bulkCreate answers `{created, skipped: [{email, reason}]}`; a duplicate email is a skip. */
  async bulkCreate(
    items: { client: Record<string, unknown>; inboundIds: number[] }[],
  ): Promise<{ created: number; skipped: { email: string; reason: string }[] }> {
    const obj = (await this.call('POST', 'panel/api/clients/bulkCreate', items)) as {
      created?: unknown;
      skipped?: unknown;
    } | null;
    const skipped = Array.isArray(obj?.skipped)
      ? obj!.skipped
          .filter((x: any) => x && typeof x.email === 'string')
          .map((x: any) => ({ email: x.email as string, reason: String(x.reason ?? '') }))
      : [];
    return { created: typeof obj?.created === 'number' ? obj.created : 0, skipped };
  }

  update(email: string, client: Record<string, unknown>) {
    return this.call('POST', `panel/api/clients/update/${encodeURIComponent(email)}`, client);
  }

  del(email: string) {
    return this.call('POST', `panel/api/clients/del/${encodeURIComponent(email)}`);
  }

  attach(email: string, inboundIds: number[]) {
    return this.call('POST', `panel/api/clients/${encodeURIComponent(email)}/attach`, { inboundIds });
  }

  detach(email: string, inboundIds: number[]) {
    return this.call('POST', `panel/api/clients/${encodeURIComponent(email)}/detach`, { inboundIds });
  }
}
