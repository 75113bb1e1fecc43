// The test-app factory: createPanelApp over a fresh store, a manual clock and fakes for the host.
import type { Hono } from 'hono';
import { createPanelApp } from '../../handlers/app.js';
import type { AppEnv } from '../../handlers/context.js';
import { createServices, type Services } from '../../domain/services.js';
import { EventBus } from '../../domain/shared/events.js';
import { ManualClock } from '../../domain/shared/clock.js';
import type { Store } from '../../domain/ports/store.js';
import type { Settings } from '../../domain/settings/schema.js';
import { freshStore, type TestDatabase } from './databases.js';
import { FakeCore } from './fake-core.js';
import { FakePortProbe } from './fake-port-probe.js';
import { FakeCoreMetrics, FakeHost } from './fake-host.js';
import { swaggerUiAssets } from '../../host-agent/docs-assets.js';

export const ADMIN = { username: 'admin', password: 'correct horse battery staple' };

export interface TestApp {
  app: Hono<AppEnv>;
  services: Services;
  store: Store;
  clock: ManualClock;
  events: EventBus;
  /** Every event emitted, in order. */
  emitted: { name: string; payload: unknown }[];
  readableFiles: Set<string>;
  restarts: number[];
  core: FakeCore;
  /** The fake bind test behind "port must be free". */
  portProbe: FakePortProbe;
  /** The fake host metrics and core metrics endpoint behind the status sampler (`services.status.tick()`). */
  host: FakeHost;
  coreMetrics: FakeCoreMetrics;
  /** Sets the peer address `clientIp()` reports for the next requests. */
  peer: { ip: string };
  close(): Promise<void>;
}

export interface TestAppOptions {
  basePath?: string;
  settingsOverrides?: Partial<Settings>;
  /** Extra service dependencies (e.g. `http`, `geoFiles` for the node and custom geo suites). */
  deps?: Partial<import('../../domain/services.js').ServiceDeps>;
  /** Keep every event in `emitted` (default). The benchmark server turns it off: it would hold every payload. */
  recordEvents?: boolean;
}

export async function createTestApp(db: TestDatabase, opts: TestAppOptions = {}): Promise<TestApp> {
  const store = await freshStore(db);
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  const events = new EventBus();
  const emitted: TestApp['emitted'] = [];
  if (opts.recordEvents !== false) {
    const originalEmit = events.emit.bind(events);
    events.emit = ((name: any, payload: any) => {
      emitted.push({ name, payload });
      originalEmit(name, payload);
    }) as EventBus['emit'];
  }
  const readableFiles = new Set<string>();
  const restarts: number[] = [];
  const peer = { ip: '203.0.113.7' };
  const core = new FakeCore();
  const portProbe = new FakePortProbe();
  const host = new FakeHost();
  const coreMetrics = new FakeCoreMetrics();
  const services = createServices({
    store,
    core,
    clock,
    events,
    portProbe,
    host,
    coreMetrics,
    files: { isReadableFile: async (p) => readableFiles.has(p) },
    panel: { requestRestart: (ms) => restarts.push(ms) },
    runtime: { panelVersion: '0.1.0', dataDir: '/nonexistent' },
    settingsOverrides: opts.settingsOverrides,
    ...opts.deps,
  });
  await services.init();
  await services.auth.ensureAdmin(ADMIN.username, ADMIN.password);
  const app = createPanelApp({
    services,
    clientIp: () => peer.ip,
    basePath: opts.basePath ?? '/',
    secure: false,
    docsAssets: swaggerUiAssets(),
  });
  return {
    app,
    services,
    store,
    core,
    portProbe,
    host,
    coreMetrics,
    clock,
    events,
    emitted,
    readableFiles,
    restarts,
    peer,
    close: () => store.close(),
  };
}

export interface Session {
  cookie: string;
  csrf: string;
}

/** Logs in through the API and returns the cookie plus the CSRF token. */
export async function login(t: TestApp, creds = ADMIN, base = '/'): Promise<Session> {
  const res = await t.app.request(`${base}login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(creds),
  });
  const body = await res.json();
  if (!body.success) throw new Error(`login failed: ${body.msg}`);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const csrfRes = await t.app.request(`${base}csrf-token`, { headers: { cookie } });
  return { cookie, csrf: (await csrfRes.json()).obj };
}

type Auth = Session | { bearer: string } | undefined;

/** Sends a request as the given principal; JSON bodies get the JSON content type. */
export async function call(
  t: TestApp,
  method: string,
  path: string,
  body?: unknown,
  auth?: Auth,
  extra: Record<string, string> = {},
) {
  const headers: Record<string, string> = { ...extra };
  if (auth && 'bearer' in auth) headers.authorization = `Bearer ${auth.bearer}`;
  else if (auth) {
    headers.cookie = auth.cookie;
    headers['x-csrf-token'] = auth.csrf;
  }
  let payload: BodyInit | undefined;
  if (body instanceof URLSearchParams || body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await t.app.request(path, { method, headers, body: payload });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text, headers: res.headers };
}
