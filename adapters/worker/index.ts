// The Cloudflare Workers entry (wrangler.toml): the subscription server (createSubscriptionApp) at the edge, reading
// the database the panel writes. PostgreSQL (`postgres://`, directly or through a Hyperdrive binding) over the
// Workers TCP socket API, or a networked libsql server (`libsql://`, `https://`) over HTTP. It reads only: the
// panel (node adapter) owns the schema and runs the migrations. No core, no host, no listeners here.
//
// Its module graph must stay free of node:fs / node:os (absent in workerd at this compatibility date): it builds
// its own read-only Store from the two repositories it needs instead of storage/store.ts (migrator, backups).
import { AsyncLocalStorage } from 'node:async_hooks';
import postgres from 'postgres';
import { createClient } from '@libsql/client/web';
import { drizzle } from 'drizzle-orm/libsql/web';
import type { Context } from 'hono';
import { createSubscriptionApp } from '../../handlers/subscription-app.js';
import { SettingsService } from '../../domain/settings/service.js';
import { SubscriptionService, type ChangeFeed } from '../../domain/subscription/service.js';
import { systemClock } from '../../domain/shared/clock.js';
import type { Store } from '../../domain/ports/store.js';
import { libsqlConnection, pgConnection, redact, type Conn, type Connection, type Tables } from '../../storage/conn.js';
import { settingsRepo } from '../../storage/repos/auth.js';
import { subscriptionsRepo } from '../../storage/repos/subscriptions.js';
import * as sqliteSchema from '../../storage/schema/sqlite.js';
import * as pgSchema from '../../storage/schema/pg.js';

export interface WorkerEnv {
  /** `postgres://…`, `libsql://…` or `https://…` of the panel's database (ignored when HYPERDRIVE is bound). */
  PANEL_DB_URL?: string;
  /** The libsql server's auth token (a secret: `wrangler secret put PANEL_DB_AUTH_TOKEN`). */
  PANEL_DB_AUTH_TOKEN?: string;
  /** A Cloudflare Hyperdrive binding in front of the panel's PostgreSQL (wrangler.toml `[[hyperdrive]]`). */
  HYPERDRIVE?: { connectionString: string };
}

interface ExecutionContext {
  waitUntil(p: Promise<unknown>): void;
}

type DbConfig =
  | { kind: 'pg'; url: string }
  | { kind: 'libsql'; url: string; authToken?: string }
  | { kind: 'invalid'; message: string };

export function dbConfig(env: WorkerEnv): DbConfig {
  if (env.HYPERDRIVE?.connectionString) return { kind: 'pg', url: env.HYPERDRIVE.connectionString };
  const url = (env.PANEL_DB_URL ?? '').trim();
  if (!url)
    return {
      kind: 'invalid',
      message: 'PANEL_DB_URL is not set and no HYPERDRIVE binding exists: set one to the database the panel uses',
    };
  if (/^postgres(ql)?:\/\/[^/]/i.test(url)) return { kind: 'pg', url };
  if (/^(libsql|https):\/\/[^/]/i.test(url)) return { kind: 'libsql', url, authToken: env.PANEL_DB_AUTH_TOKEN };
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? url.slice(0, 12);
  return {
    kind: 'invalid',
    message: `PANEL_DB_URL must be a postgres://, postgresql://, libsql:// or https:// URL (got "${scheme}…")`,
  };
}

// The connection of the request being served. The services live across requests (their caches are the point), but
// a PostgreSQL socket belongs to the request that opened it, so every query looks the connection up here. It is
// opened on the first query: a request the caches answer opens none.
interface RequestDb {
  conn(): Conn;
  close(): Promise<void>;
}
const requestDb = new AsyncLocalStorage<RequestDb>();
function scopedConn(dialect: Conn['dialect'], t: Tables): Conn {
  const cur = (): Conn => {
    const r = requestDb.getStore();
    if (!r) throw new Error('database access outside a request');
    return r.conn();
  };
  return {
    dialect,
    t,
    inTx: false,
    readAside: null,
    get db() {
      return cur().db;
    },
    tx: (fn) => cur().tx(fn),
    write: (fn) => cur().write(fn),
    exec: (q) => cur().exec(q),
    all: (q) => cur().all(q),
    affected: (r) => cur().affected(r),
  };
}

const READ_ONLY = 'the Workers entry is a read-only subscription server';
const unavailable = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      return () => {
        throw new Error(`${name}.${String(prop)}: ${READ_ONLY}`);
      };
    },
  });

/** The Store the subscription server needs: settings (read) and subscription reads; anything else throws. */
function edgeStore(c: Conn): Store {
  const settings = settingsRepo(c);
  return {
    dialect: c.dialect,
    settings: {
      all: settings.all,
      get: settings.get,
      setMany: async () => {
        throw new Error(`settings.setMany: ${READ_ONLY}`);
      },
    },
    subscriptions: subscriptionsRepo(c),
    users: unavailable('users'),
    tokens: unavailable('tokens'),
    coreView: unavailable('coreView'),
    traffic: unavailable('traffic'),
    inbounds: unavailable('inbounds'),
    clients: unavailable('clients'),
    groups: unavailable('groups'),
    backup: unavailable('backup'),
    nodes: unavailable('nodes'),
    nodeSync: unavailable('nodeSync'),
    geo: unavailable('geo'),
    transaction: async () => {
      throw new Error(`transaction: ${READ_ONLY}`);
    },
    close: async () => {},
  };
}

/** No in-process change events reach the edge: cached subscriptions expire by CACHE_TTL_MS alone. */
const noEvents: ChangeFeed = { on: () => undefined };

function log(message: string): void {
  console.error(`subscription worker: ${message}`);
}

const serviceUnavailable = () =>
  new Response(null, { status: 503, headers: { 'Cache-Control': 'no-store', 'Retry-After': '30' } });

interface Edge {
  app: ReturnType<typeof createSubscriptionApp>;
  /** The database of one request (closed after its response). */
  open(): RequestDb;
}

function createEdge(cfg: Exclude<DbConfig, { kind: 'invalid' }>): Edge {
  let open: Edge['open'];
  let conn: Conn;
  if (cfg.kind === 'pg') {
    conn = scopedConn('pg', pgSchema as unknown as Tables);
    // One socket per request (pipelined queries); no type lookup round trip: the reads use no array types.
    open = () => {
      let c: Connection | null = null;
      return {
        conn: () =>
          (c ??= pgConnection(
            postgres(cfg.url, { max: 1, fetch_types: false, connect_timeout: 10, onnotice: () => {} }),
            cfg.url,
          )),
        close: async () => {
          await c?.close();
        },
      };
    };
  } else {
    // libsql over HTTP: each statement is its own fetch, so one client serves every request.
    const client = createClient({ url: cfg.url, authToken: cfg.authToken });
    const shared = libsqlConnection(drizzle(client, { schema: sqliteSchema }), redact(cfg.url), async () =>
      client.close(),
    );
    conn = scopedConn('sqlite', sqliteSchema);
    open = () => ({ conn: () => shared, close: async () => {} });
  }
  const store = edgeStore(conn);
  const settings = new SettingsService(store, { isReadableFile: async () => false }, { emit: () => {} });
  const subscriptions = new SubscriptionService(store, settings, systemClock, noEvents);
  const app = createSubscriptionApp({
    services: { settings, subscriptions },
    clientIp: (c: Context) => c.req.header('cf-connecting-ip') ?? '',
    onError: (err) => {
      log(`database error, answering 503: ${err instanceof Error ? err.message : String(err)}`);
      return serviceUnavailable();
    },
  });
  return { app, open };
}

let cached: { key: string; edge: Edge } | null = null;
const logged = new Set<string>();

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    const cfg = dbConfig(env);
    if (cfg.kind === 'invalid') {
      if (!logged.has(cfg.message)) {
        logged.add(cfg.message);
        log(`${cfg.message}; answering 503`);
      }
      return serviceUnavailable();
    }
    const key = `${cfg.kind}\n${cfg.url}`;
    if (cached?.key !== key) cached = { key, edge: createEdge(cfg) };
    const { app, open } = cached.edge;
    const db = open();
    try {
      return await requestDb.run(db, () => app.fetch(request));
    } catch (err) {
      log(`unexpected error, answering 503: ${err instanceof Error ? err.message : String(err)}`);
      return serviceUnavailable();
    } finally {
      ctx.waitUntil(db.close().catch(() => {}));
    }
  },
};
