// Starts the BUILT panel (dist/adapters/node/main.js) as a user would: temp data directory, free ports,
// PANEL_CORE_BIN set to the test core. Talks to it over HTTP with a Bearer token.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts } from './ports.js';
import { onKillAll, pidAlive, startProc, type Proc } from './procs.js';

const MAIN = fileURLToPath(new URL('../../../dist/adapters/node/main.js', import.meta.url));

export interface PanelOptions {
  coreBin: string;
  /** Extra environment (e.g. PANEL_LOG_LEVEL). */
  env?: Record<string, string>;
  /** Reuse a data directory (second start); a fresh temp one by default. */
  dataDir?: string;
  /** Reuse ports (a restart that others must find at the same address); free ones by default. */
  ports?: { panel: number; sub: number; api: number };
}

export interface Envelope<T = any> {
  success: boolean;
  msg: string;
  obj: T;
}

export interface Panel {
  url: string;
  dataDir: string;
  proc: Proc;
  token: string;
  ports: { panel: number; sub: number; api: number };
  /** Calls the management API with the Bearer token; JSON bodies, or form bodies for URLSearchParams. */
  api<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Envelope<T>>;
  /** The core's pid from its pid file, or null when no core runs. */
  corePid(): number | null;
  /** SIGTERM (graceful) by default; resolves on exit. Removes the data dir unless `keepData`. */
  stop(signal?: NodeJS.Signals, keepData?: boolean): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const ADMIN = { username: 'e2e-admin', password: 'e2e-password-123' };

export async function startPanel(opts: PanelOptions): Promise<Panel> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'panel-e2e-'));
  const [panelPort, subPort, apiPort] = opts.ports
    ? [opts.ports.panel, opts.ports.sub, opts.ports.api]
    : await freePorts(3);
  const proc = startProc(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PANEL_DATA_DIR: dataDir,
      PANEL_LISTEN: '127.0.0.1',
      PANEL_PORT: String(panelPort),
      SUB_PORT: String(subPort),
      PANEL_CORE_BIN: opts.coreBin,
      PANEL_CORE_API_PORT: String(apiPort),
      PANEL_ADMIN_USERNAME: ADMIN.username,
      PANEL_ADMIN_PASSWORD: ADMIN.password,
      PANEL_LOG_LEVEL: 'warn',
      ...opts.env,
    },
  });
  // killAll(): SIGTERM first (the panel stops its core), SIGKILL after 8 s, then any core left behind by pid file.
  const corePidNow = () => {
    try {
      return (JSON.parse(readFileSync(join(dataDir, 'core', 'core.pid'), 'utf8')) as { pid: number }).pid;
    } catch {
      return null;
    }
  };
  onKillAll(async () => {
    const core = corePidNow();
    await proc.kill('SIGTERM');
    if (core && pidAlive(core) && readFileSync(`/proc/${core}/cmdline`, 'utf8').includes(dataDir))
      process.kill(core, 'SIGKILL');
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  await proc.waitFor(/panel listening on (\S+)/, 20_000);
  const url = `http://127.0.0.1:${panelPort}${opts.env?.PANEL_BASE_PATH ?? '/'}`;
  const token = await createToken(url);
  const panel: Panel = {
    url,
    dataDir,
    proc,
    token,
    ports: { panel: panelPort!, sub: subPort!, api: apiPort! },
    async api(method, path, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      let payload: string | undefined;
      if (body instanceof URLSearchParams) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        payload = body.toString();
      } else if (body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(body);
      }
      const res = await fetch(new URL(path.replace(/^\//, ''), url), { method, headers, body: payload });
      const text = await res.text();
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
      }
    },
    corePid: corePidNow,
    async stop(signal = 'SIGTERM', keepData = false) {
      proc.child.kill(signal);
      const r = await proc.exited;
      if (!keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return r;
    },
  };
  return panel;
}

/** Logs in with the admin credential and creates an API token. */
export async function createToken(url: string): Promise<string> {
  const login = await fetch(new URL('login', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const lj = await login.json();
  if (!lj.success) throw new Error(`e2e login failed: ${lj.msg}`);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = (await (await fetch(new URL('csrf-token', url), { headers: { cookie } })).json()).obj as string;
  const res = await fetch(new URL('panel/setting/apiTokens/create', url), {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `e2e-${Date.now()}` }),
  });
  const j = await res.json();
  if (!j.success) throw new Error(`e2e token create failed: ${j.msg}`);
  return j.obj.token as string;
}

/** Waits until `fn` returns a truthy value (polling), or fails after `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 5000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms (last: ${last instanceof Error ? last.message : String(last)})`,
      );
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
