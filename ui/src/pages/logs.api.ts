// The Logs page's and the backup card's calls: the panel log (with the server's note when the system journal
// was asked for but is not readable), the core log with its filters, the database download (fetch + Blob, so
// a failure is reported instead of being saved as a file) and the restore upload (XMLHttpRequest, for the
// upload progress). Counts for the restore confirmation come from cheap existing endpoints.
import { ApiError, base, call, toLogin, type ClientPage, type Envelope, type InboundOption } from '../api';

export type PanelLevel = 'debug' | 'info' | 'warning' | 'error';

export interface CoreLogFilter {
  filter: string;
  showDirect: boolean;
  showBlocked: boolean;
  showProxy: boolean;
}

export interface ImportResult {
  backup: string;
  tables: number;
  rows: number;
  format: 'panel' | 'x-ui';
  skipped: { what: string; reason: string }[];
  converted: Record<string, number>;
  newAdminPassword?: string;
}

const csrf = () => document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
const url = (path: string) => base + path;

/** Splits a log answer into lines (an empty answer is no lines). */
export const splitLines = (text: string): string[] => (text ? text.split('\n') : []);

/**
 * The panel's latest lines at or above `level`. `note` is the server's message: with `syslog` on it says
 * whether the lines come from the systemd journal or why the panel's own log is shown instead.
 */
export async function panelLog(
  count: number,
  level: PanelLevel,
  syslog: boolean,
): Promise<{ lines: string[]; note: string }> {
  const res = await fetch(url(`panel/api/server/logs/${count}`), {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'X-Requested-With': 'XMLHttpRequest',
      'X-CSRF-Token': csrf(),
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ level, syslog }),
  });
  if (res.status === 401) toLogin();
  let env: Envelope<string>;
  try {
    env = await res.json();
  } catch {
    throw new ApiError(`HTTP ${res.status}`);
  }
  if (!env.success) throw new ApiError(env.msg || `HTTP ${res.status}`);
  return { lines: splitLines(env.obj ?? ''), note: env.msg ?? '' };
}

/** The core's access and error logs merged by time, keyword-filtered, by outbound class. */
export async function coreLog(count: number, f: CoreLogFilter): Promise<string[]> {
  return splitLines(await call<string>('POST', `panel/api/server/corelogs/${count}`, f));
}

/** What a restore replaces, as counts (null when a count cannot be read). */
export async function restoreCounts(): Promise<{ inbounds: number | null; clients: number | null }> {
  const [inbounds, clients] = await Promise.all([
    call<InboundOption[]>('GET', 'panel/api/inbounds/options').then(
      (xs) => xs.length,
      () => null,
    ),
    call<ClientPage>('GET', 'panel/api/clients/list/paged?page=1&pageSize=1').then(
      (p) => p.total,
      () => null,
    ),
  ]);
  return { inbounds, clients };
}

/** The file name from a Content-Disposition header, or a fallback. */
export function attachmentName(header: string | null, fallback: string): string {
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header ?? '');
  const name = m?.[1] ? decodeURIComponent(m[1]) : '';
  return /^[\w.-]+$/.test(name) ? name : fallback;
}

/** GET getDb: the database file as a Blob and the server's file name; a failure throws the panel's message. */
export async function downloadDatabase(): Promise<{ blob: Blob; fileName: string }> {
  const res = await fetch(url('panel/api/server/getDb'), {
    credentials: 'same-origin',
    headers: { 'X-Requested-With': 'XMLHttpRequest' },
    cache: 'no-store',
  });
  if (res.status === 401) toLogin();
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || type.includes('json')) {
    let msg = `HTTP ${res.status}`;
    try {
      msg = ((await res.json()) as Envelope<unknown>).msg || msg;
    } catch {
      // not an envelope: keep the status
    }
    throw new ApiError(msg);
  }
  return { blob: await res.blob(), fileName: attachmentName(res.headers.get('content-disposition'), 'panel.db') };
}

/**
 * POST importDB (multipart field `db`) with upload progress (0..1). Resolves with the result and the panel's
 * message; rejects with the panel's message (or the HTTP status).
 */
export function uploadDatabase(
  file: File,
  onProgress: (fraction: number) => void,
): Promise<{ result: ImportResult; msg: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url('panel/api/server/importDB'));
    xhr.withCredentials = true;
    xhr.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
    xhr.setRequestHeader('X-CSRF-Token', csrf());
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.upload.onload = () => onProgress(1);
    xhr.onerror = () => reject(new ApiError('the upload failed: the panel did not answer'));
    xhr.onabort = () => reject(new ApiError('the upload was cancelled'));
    xhr.onload = () => {
      if (xhr.status === 401) {
        try {
          toLogin();
        } catch (err) {
          reject(err);
        }
        return;
      }
      let env: Envelope<ImportResult>;
      try {
        env = JSON.parse(xhr.responseText);
      } catch {
        reject(new ApiError(`HTTP ${xhr.status}`));
        return;
      }
      if (!env.success) reject(new ApiError(env.msg || `HTTP ${xhr.status}`));
      else resolve({ result: env.obj, msg: env.msg });
    };
    const form = new FormData();
    form.append('db', file, file.name);
    xhr.send(form);
  });
}

/** True when the panel answers HTTP at all (the login page needs no session). */
export async function panelAnswers(): Promise<boolean> {
  try {
    const res = await fetch(base, { cache: 'no-store', credentials: 'same-origin', redirect: 'manual' });
    return res.status > 0 || res.type === 'opaqueredirect';
  } catch {
    return false;
  }
}

/** Saves text or a Blob as a file through an object URL and a temporary <a download>. */
export function saveFile(data: Blob, fileName: string): void {
  const href = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = href;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/** `2026-05-01_134502` in local time, for file names. */
export function fileStamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}_` +
    `${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`
  );
}
