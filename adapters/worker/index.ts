// The Cloudflare Workers entry (wrangler.toml): the subscription server (createSubscriptionApp) at the edge,
// against a networked libsql database (Turso / sqld) through `@libsql/client/web`. It reads only: the panel (node
// adapter) owns the schema and runs the migrations. No core, no host, no listeners here.
import { createClient } from '@libsql/client/web';
import { drizzle } from 'drizzle-orm/libsql/web';
import type { Context } from 'hono';
import { createSubscriptionApp } from '../../handlers/subscription-app.js';
import { createServices } from '../../domain/services.js';
import { EventBus } from '../../domain/shared/events.js';
import { systemClock } from '../../domain/shared/clock.js';
import type { CoreControl, CoreStatus } from '../../domain/ports/core.js';
import { libsqlConnection } from '../../storage/conn.js';
import { createStore } from '../../storage/store.js';
import * as schema from '../../storage/schema/sqlite.js';

export interface WorkerEnv {
  /** `libsql://…` or `https://…` of the networked database. */
  PANEL_DB_URL: string;
  /** Its auth token (a secret: `wrangler secret put PANEL_DB_AUTH_TOKEN`). */
  PANEL_DB_AUTH_TOKEN?: string;
}

const REASON = 'the Workers entry serves subscriptions only; the core runs on the panel host';

/** The core port at the edge: nothing to control. */
const noCore = new Proxy({} as CoreControl, {
  get(_t, prop) {
    if (prop === 'status') return (): CoreStatus => ({ state: 'stopped', version: '', flavour: 'unknown', error: REASON, pid: null });
    if (prop === 'output') return () => REASON;
    if (prop === 'queryStats') return async () => [];
    return async () => { throw new Error(REASON); };
  },
});

type App = ReturnType<typeof createSubscriptionApp>;
let cached: { url: string; app: App } | null = null;

function appFor(env: WorkerEnv): App {
  if (cached && cached.url === env.PANEL_DB_URL) return cached.app;
  if (!env.PANEL_DB_URL) throw new Error('PANEL_DB_URL is not configured');
  const client = createClient({ url: env.PANEL_DB_URL, authToken: env.PANEL_DB_AUTH_TOKEN });
  const db = drizzle(client, { schema });
  const conn = libsqlConnection(db, env.PANEL_DB_URL, async () => client.close());
  const services = createServices({
    store: createStore(conn),
    core: noCore,
    clock: systemClock,
    events: new EventBus(),
    files: { isReadableFile: async () => false },
    panel: { requestRestart: () => {} },
    runtime: { panelVersion: 'worker', dataDir: '' },
  });
  const clientIp = (c: Context) => c.req.header('cf-connecting-ip') ?? '';
  const app = createSubscriptionApp({ services, clientIp });
  cached = { url: env.PANEL_DB_URL, app };
  return app;
}

export default {
  fetch(request: Request, env: WorkerEnv, ctx: unknown): Response | Promise<Response> {
    try {
      return appFor(env).fetch(request, env, ctx as never);
    } catch {
      return new Response(null, { status: 404 });
    }
  },
};
