// The subscription server at the edge against the Node one, same machine, same PostgreSQL data (the subscription
// bench's 100,000 clients): the Worker bundle in workerd (one process) and createSubscriptionApp over the node
// adapter's serve(), each loaded by autocannon in its own process. Two paths: one subscription asked again and
// again (each server's cache), and a random subscription per request (a database read per request; on the Worker
// also a new PostgreSQL connection, which Hyperdrive would pool in production). Plus the bundle size.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { serve, type ServerType } from '@hono/node-server';
import { connect } from '../storage/conn.js';
import { createStore } from '../storage/store.js';
import { runMigrations } from '../storage/migrate.js';
import { SettingsService } from '../domain/settings/service.js';
import { SubscriptionService } from '../domain/subscription/service.js';
import { EventBus } from '../domain/shared/events.js';
import { systemClock } from '../domain/shared/clock.js';
import { createSubscriptionApp } from '../handlers/subscription-app.js';
import { buildWorker, freePort, startWorkerd } from '../scripts/worker.js';
import { withPgDatabase } from './databases.js';
import { CLIENTS, seed } from './subscription.bench.js';
import type { Benchmark, BenchRow } from './types.js';

const DURATION_S = Number(process.env.BENCH_EDGE_DURATION || 10);
const CONNECTIONS = 32;
const autocannonPath = createRequire(import.meta.url).resolve('autocannon');

// autocannon's API in a child process: a fixed path, or a random subscription id per request.
const CANNON = `
const autocannon = require(process.argv[1]);
const [url, connections, duration, random, clients] = process.argv.slice(2);
const requests = random === '1' ? [{ setupRequest: (r) => ({ ...r, path: '/sub/sub-' + (1 + Math.floor(Math.random() * Number(clients))) }) }] : undefined;
autocannon({ url, connections: Number(connections), duration: Number(duration), requests }, (err, r) => {
  if (err) { console.error(String(err)); process.exit(1); }
  console.log(JSON.stringify({ rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx }));
});`;

interface Cannon {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function cannon(url: string, random: boolean, connections = CONNECTIONS): Promise<Cannon> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ['-e', CANNON, autocannonPath, url, String(connections), String(DURATION_S), random ? '1' : '0', String(CLIENTS)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('exit', () => {
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`autocannon: ${out.slice(0, 200)} ${err.slice(0, 400)}`));
      }
    });
  });
}

const bench: Benchmark = async (ctx) => {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'panel-bench-edge-'));
  try {
    const bundle = await buildWorker(dir);
    rows.push({ name: 'Worker bundle (minified)', db: '', value: bundle.bytes / 1024, unit: 'KiB' });
    rows.push({
      name: 'Worker bundle (gzip, what Workers limits count)',
      db: '',
      value: bundle.gzipBytes / 1024,
      unit: 'KiB',
      target: '<= 3072 KiB (free plan)',
    });
    if (!ctx.pgUrl) {
      ctx.log('no PostgreSQL: only the bundle size');
      return rows;
    }
    await withPgDatabase(ctx.pgUrl, 'panel_bench_edge', async (url) => {
      await runMigrations(url);
      const conn = await connect(url);
      const servers: ServerType[] = [];
      const workerds: Awaited<ReturnType<typeof startWorkerd>>[] = [];
      try {
        ctx.log(`seeding ${CLIENTS} clients`);
        await seed(conn);
        await conn.exec(sql`ANALYZE`);
        const store = createStore(conn);
        const events = new EventBus();
        const settings = new SettingsService(store, { isReadableFile: async () => false }, events);
        await settings.update({ subJsonEnable: true, subClashEnable: true });
        // As the Node adapter wires it: cached per subscription, invalidated by events.
        const subscriptions = new SubscriptionService(store, settings, systemClock, events);
        const app = createSubscriptionApp({ services: { settings, subscriptions }, clientIp: () => '127.0.0.1' });
        const listen = async (fetch: (r: Request) => Response | Promise<Response>) => {
          const s = await new Promise<ServerType>((resolve) => {
            const srv = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(srv));
          });
          servers.push(s);
          return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
        };
        const nodeBase = await listen(app.fetch);
        const nodeHello = await listen(() => new Response('hello'));
        const [port, helloPort] = [await freePort(), await freePort()];
        workerds.push(await startWorkerd(bundle, [{ name: 'bench', port, text: { PANEL_DB_URL: url } }]));
        // For comparison: what workerd itself serves here, a Worker answering "hello".
        mkdirSync(join(dir, 'hello'));
        writeFileSync(join(dir, 'hello', 'worker.js'), 'export default { fetch() { return new Response("hello"); } };');
        workerds.push(
          await startWorkerd({ file: join(dir, 'hello', 'worker.js'), bytes: 0, gzipBytes: 0, imports: [] }, [
            { name: 'hello', port: helloPort },
          ]),
        );
        const edgeBase = `http://127.0.0.1:${port}`;
        // Sanity: both answer the measured subscription with its 4 links.
        for (const base of [nodeBase, edgeBase]) {
          const r = await fetch(`${base}/sub/sub-50000`);
          const links = Buffer.from(await r.text(), 'base64')
            .toString('utf8')
            .split('\n');
          if (r.status !== 200 || links.length !== 4) throw new Error(`${base}: ${r.status}, ${links.length} links`);
        }
        const measure = async (
          label: string,
          base: string,
          random: boolean,
          connections = CONNECTIONS,
          path = '/sub/sub-50000',
        ) => {
          ctx.log(`${label} (${connections} connections, ${DURATION_S} s)`);
          const r = await cannon(`${base}${path}`, random, connections);
          if (r.errors || r.non2xx) ctx.log(`${label}: ${r.errors} errors, ${r.non2xx} non-2xx`);
          ctx.log(`${label}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms`);
          rows.push({ name: `${label} req/s`, db: 'pg', value: r.rps, unit: 'req/s' });
          rows.push({ name: `${label} p99`, db: 'pg', value: r.p99, unit: 'ms' });
        };
        await measure('Node bare "hello" (same adapter)', nodeHello, false, CONNECTIONS, '/');
        await measure('workerd bare "hello" Worker', `http://127.0.0.1:${helloPort}`, false, CONNECTIONS, '/');
        await measure('Node /sub/:subid, one subscription (cached)', nodeBase, false);
        await measure('Worker (workerd) /sub/:subid, one subscription (cached)', edgeBase, false);
        // Fewer connections: each Worker request opens its own PostgreSQL connection here.
        await measure('Node /sub/:subid, random of 100k (DB read each)', nodeBase, true, 16);
        await measure('Worker (workerd) /sub/:subid, random of 100k (connect + DB read each)', edgeBase, true, 16);
      } finally {
        for (const w of workerds) await w.stop();
        for (const s of servers)
          await new Promise<void>((r) => {
            (s as any).closeAllConnections?.();
            s.close(() => r());
          });
        await conn.close();
      }
    });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;
