// The UI's only access to the management API: one fetch wrapper plus typed calls. Types are imported from the
// domain (types only, erased at build); switching to `hc<PanelApp>` from hono/client later changes this file
// alone. Every unsafe request carries X-CSRF-Token; a lost session sends the user to the login page with the
// current page remembered.
import type { ClientPage, BulkSkip, ClientListRow, ClientDetail } from '../../domain/clients/model.js';
import type { StatusSnapshot } from '../../domain/status/model.js';

export type { ClientPage, BulkSkip, ClientListRow, ClientDetail, StatusSnapshot };

export interface Envelope<T> {
  success: boolean;
  msg: string;
  obj: T;
}

export interface InboundRow {
  id: number;
  remark: string;
  protocol: string;
  port: number;
  listen: string;
  enable: boolean;
  up: number;
  down: number;
  total: number;
  expiryTime: number;
  tag: string;
  settings: { clients?: { email: string; enable: boolean }[] } & Record<string, unknown>;
  streamSettings?: Record<string, any>;
}

export interface InboundOption {
  id: number;
  remark: string;
  protocol: string;
  port: number;
}

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
/** The web base path, always ending in `/`. */
export const base = meta('panel-base') || '/';
const csrf = meta('csrf-token');

export class ApiError extends Error {}

/** Where we are inside the app, as the login page's `next` parameter. */
export const currentPage = () => location.pathname.slice(base.length) + location.search;

export function toLogin(): never {
  location.assign(`${base}?next=${encodeURIComponent(currentPage())}`);
  throw new ApiError('session expired: log in again');
}

/** Calls the API and unwraps the envelope; a failed envelope throws its message. */
export async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'X-Requested-With': 'XMLHttpRequest' };
  if (method !== 'GET') headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(base + path.replace(/^\//, ''), {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) toLogin();
  let env: Envelope<T>;
  try {
    env = await res.json();
  } catch {
    throw new ApiError(`HTTP ${res.status}`);
  }
  if (!env.success) throw new ApiError(env.msg || `HTTP ${res.status}`);
  return env.obj;
}

export const api = {
  login: (username: string, password: string, twoFactorCode?: string) =>
    call<null>('POST', 'login', { username, password, ...(twoFactorCode ? { twoFactorCode } : {}) }),
  logout: () => call<null>('POST', 'logout'),
  twoFactorEnabled: () => call<boolean>('POST', 'getTwoFactorEnable'),

  status: () => call<StatusSnapshot>('GET', 'panel/api/server/status'),
  history: (metric: string, bucket: number) =>
    call<{ t: number; v: number }[]>('GET', `panel/api/server/history/${metric}/${bucket}`),
  stopCore: () => call<null>('POST', 'panel/api/server/stopCoreService'),
  restartCore: () => call<null>('POST', 'panel/api/server/restartCoreService'),
  newX25519: () => call<{ privateKey: string; publicKey: string }>('GET', 'panel/api/server/getNewX25519Cert'),

  inbounds: () => call<InboundRow[]>('GET', 'panel/api/inbounds/list/slim'),
  inboundOptions: () => call<InboundOption[]>('GET', 'panel/api/inbounds/options'),
  addInbound: (body: Record<string, unknown>) => call<InboundRow>('POST', 'panel/api/inbounds/add', body),
  deleteInbound: (id: number) => call<unknown>('POST', `panel/api/inbounds/del/${id}`),
  resetInboundTraffic: (id: number) => call<unknown>('POST', `panel/api/inbounds/${id}/resetTraffic`),
  setInboundEnable: (id: number, enable: boolean) =>
    call<unknown>('POST', `panel/api/inbounds/setEnable/${id}`, { enable }),

  clientsPage: (q: URLSearchParams) => call<ClientPage>('GET', `panel/api/clients/list/paged?${q}`),
  addClient: (client: Record<string, unknown>, inboundIds: number[]) =>
    call<unknown>('POST', 'panel/api/clients/add', { client, inboundIds }),
  getClient: (email: string) =>
    call<{ client: ClientDetail; inboundIds: number[] }>('GET', `panel/api/clients/get/${encodeURIComponent(email)}`),
  updateClient: (email: string, client: Record<string, unknown>) =>
    call<unknown>('POST', `panel/api/clients/update/${encodeURIComponent(email)}`, client),
  deleteClient: (email: string, keepTraffic: boolean) =>
    call<null>('POST', `panel/api/clients/del/${encodeURIComponent(email)}?keepTraffic=${keepTraffic ? 1 : 0}`),
  resetClientTraffic: (email: string) =>
    call<null>('POST', `panel/api/clients/resetTraffic/${encodeURIComponent(email)}`),
  groups: () => call<{ name: string; clientCount: number }[]>('GET', 'panel/api/clients/groups'),
  createGroup: (name: string) => call<unknown>('POST', 'panel/api/clients/groups/create', { name }),
  renameGroup: (oldName: string, newName: string) =>
    call<{ affected: number }>('POST', 'panel/api/clients/groups/rename', { oldName, newName }),
  deleteGroup: (name: string) => call<{ affected: number }>('POST', 'panel/api/clients/groups/delete', { name }),
  links: (email: string) => call<string[]>('GET', `panel/api/clients/links/${encodeURIComponent(email)}`),
  bulkAdjust: (emails: string[], addDays: number, addBytes: number) =>
    call<{ adjusted: number; skipped: BulkSkip[] }>('POST', 'panel/api/clients/bulkAdjust', {
      emails,
      addDays,
      addBytes,
    }),
  bulkAssignGroup: (emails: string[], group: string) =>
    call<{ affected: number }>('POST', 'panel/api/clients/bulkAssignGroup', { emails, group }),
  bulkResetTraffic: (emails: string[]) =>
    call<{ affected: number }>('POST', 'panel/api/clients/bulkResetTraffic', { emails }),
  bulkDel: (emails: string[]) =>
    call<{ deleted: number; skipped: BulkSkip[] }>('POST', 'panel/api/clients/bulkDel', { emails, keepTraffic: false }),
};
