// Subscription server throughput at 100,000 clients: a subscription of 1 client on 4 inbounds (VMess ws+TLS,
// VLESS reality, Trojan TLS, Shadowsocks), fetched over real HTTP through the node adapter's serve() with 32
// connections for 10 s (autocannon in its own process, so it does not share the server's event loop): /sub,
// JSON and Clash YAML, plus a bare Hono "hello" route served the same way for comparison.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { eachDatabase } from './databases.js';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { connect, type Connection } from '../storage/conn.js';
import { createStore } from '../storage/store.js';
import { runMigrations } from '../storage/migrate.js';
import { SettingsService } from '../domain/settings/service.js';
import { SubscriptionService } from '../domain/subscription/service.js';
import { EventBus } from '../domain/shared/events.js';
import { systemClock } from '../domain/shared/clock.js';
import type { Services } from '../domain/services.js';
import { createSubscriptionApp } from '../handlers/subscription-app.js';
import type { Benchmark, BenchRow } from './types.js';

export const CLIENTS = 100_000;
const DURATION_S = Number(process.env.BENCH_SUB_DURATION || 10);
const CONNECTIONS = 32;
const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

const INBOUNDS: { protocol: string; port: number; remark: string; settings: object; stream: object }[] = [
  {
    protocol: 'vmess',
    port: 30001,
    remark: 'VM',
    settings: {},
    stream: {
      network: 'ws',
      security: 'tls',
      wsSettings: { path: '/vm', host: 'cdn.example.com' },
      tlsSettings: { serverName: 'cdn.example.com', alpn: ['h2', 'http/1.1'], settings: { fingerprint: 'chrome' } },
    },
  },
  {
    protocol: 'vless',
    port: 30002,
    remark: 'VL',
    settings: { decryption: 'none' },
    stream: {
      network: 'tcp',
      security: 'reality',
      realitySettings: {
        serverNames: ['www.example.com'],
        shortIds: ['6ba85179e30d4fc2'],
        settings: { publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', fingerprint: 'chrome' },
      },
    },
  },
  {
    protocol: 'trojan',
    port: 30003,
    remark: 'TR',
    settings: {},
    stream: {
      network: 'grpc',
      security: 'tls',
      grpcSettings: { serviceName: 'tg' },
      tlsSettings: { serverName: 'tr.example.com' },
    },
  },
  {
    protocol: 'shadowsocks',
    port: 30004,
    remark: 'SS',
    settings: { method: 'aes-256-gcm' },
    stream: { network: 'tcp', security: 'none' },
  },
];

export async function seed(c: Connection): Promise<void> {
  for (const [i, ib] of INBOUNDS.entries()) {
    await c.exec(sql`INSERT INTO inbounds (tag, port, protocol, remark, settings, stream_settings) VALUES
      (${`inbound-${i + 1}`}, ${ib.port}, ${ib.protocol}, ${ib.remark}, ${JSON.stringify(ib.settings)}, ${JSON.stringify(ib.stream)})`);
  }
  const series =
    c.dialect === 'pg'
      ? sql`SELECT i FROM generate_series(1, ${CLIENTS}::int) AS g(i)`
      : sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CLIENTS}) SELECT i FROM n`;
  await c.exec(sql`INSERT INTO clients (email, sub_id, uuid, password, method, total_bytes, enable, created_at, updated_at)
    SELECT 'user' || i || '@bench', 'sub-' || i, '0f5b7a56-3f4f-4d55-9a3e-' || substr('000000000000' || i, -12, 12), 'pw' || i, 'aes-256-gcm',
      10737418240, true, 1, 1 FROM (${series}) AS s`);
  await c.exec(sql`INSERT INTO client_traffics (email, up, down, enable) SELECT email, 1000, 2000, true FROM clients`);
  await c.exec(sql`INSERT INTO client_inbounds (client_id, inbound_id) SELECT id, 1 + (id % 4) FROM clients`);
  // The measured subscription: one client on all four inbounds.
  await c.exec(sql`INSERT INTO client_inbounds (client_id, inbound_id)
    SELECT c.id, i.id FROM clients c, inbounds i WHERE c.sub_id = 'sub-50000' AND i.id <> 1 + (c.id % 4)`);
}

interface Cannon {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function autocannon(url: string, headers: Record<string, string> = {}): Promise<Cannon> {
  return new Promise((resolve, reject) => {
    const args = [autocannonBin, '-c', String(CONNECTIONS), '-d', String(DURATION_S), '-j'];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
    args.push(url);
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', () => {
      try {
        const r = JSON.parse(out);
        resolve({ rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx });
      } catch (err) {
        reject(new Error(`autocannon output not JSON: ${out.slice(0, 200)}`));
      }
    });
  });
}

const listen = (fetch: (req: Request) => Response | Promise<Response>) =>
  new Promise<ServerType>((resolve) => {
    const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
const close = (s: ServerType) =>
  new Promise<void>((r) => {
    (s as any).closeAllConnections?.();
    s.close(() => r());
  });

async function run(name: 'libsql' | 'pg', url: string, log: (l: string) => void): Promise<BenchRow[]> {
  await runMigrations(url);
  const conn = await connect(url);
  const servers: ServerType[] = [];
  try {
    log(`${name}: seeding ${CLIENTS} clients`);
    await seed(conn);
    if (conn.dialect === 'pg') await conn.exec(sql`ANALYZE`);
    const store = createStore(conn);
    const events = new EventBus();
    const settings = new SettingsService(store, { isReadableFile: async () => false }, events);
    await settings.update({ subJsonEnable: true, subClashEnable: true });
    // As wired in createServices: the service caches per subscription and listens for change events.
    const subscriptions = new SubscriptionService(store, settings, systemClock, events);
    const subApp = createSubscriptionApp({
      services: { settings, subscriptions } as unknown as Services,
      clientIp: () => '127.0.0.1',
    });
    // For comparison: no event feed, so every request reads the database and renders.
    const uncached = new SubscriptionService(store, settings, systemClock);
    const uncachedApp = createSubscriptionApp({
      services: { settings, subscriptions: uncached } as unknown as Services,
      clientIp: () => '127.0.0.1',
    });
    const hello = new Hono().get('/hello', (c) => c.text('hello'));
    const subServer = await listen(subApp.fetch);
    const uncachedServer = await listen(uncachedApp.fetch);
    const helloServer = await listen(hello.fetch);
    servers.push(subServer, uncachedServer, helloServer);
    const subBase = `http://127.0.0.1:${(subServer.address() as AddressInfo).port}`;
    const uncachedBase = `http://127.0.0.1:${(uncachedServer.address() as AddressInfo).port}`;
    const helloUrl = `http://127.0.0.1:${(helloServer.address() as AddressInfo).port}/hello`;

    // Sanity: the subscription answers with 4 links before we measure it.
    const check = await fetch(`${subBase}/sub/sub-50000`);
    const links = Buffer.from(await check.text(), 'base64')
      .toString('utf8')
      .split('\n');
    if (check.status !== 200 || links.length !== 4)
      throw new Error(`subscription check failed: ${check.status} ${links.length} links`);
    for (const p of ['/json/sub-50000', '/clash/sub-50000']) {
      const r = await fetch(`${subBase}${p}`);
      if (r.status !== 200) throw new Error(`${p} answered ${r.status}`);
    }

    const rows: BenchRow[] = [];
    const measure = async (label: string, target: string, url: string, rpsTarget: string) => {
      log(`${name}: ${label} (${CONNECTIONS} connections, ${DURATION_S} s)`);
      const r = await autocannon(url);
      if (r.errors || r.non2xx) log(`${name}: ${label}: ${r.errors} errors, ${r.non2xx} non-2xx`);
      log(`${name}: ${label}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms`);
      rows.push({ name: `${label} req/s`, db: name, value: r.rps, unit: 'req/s', target: rpsTarget });
      rows.push({ name: `${label} p99`, db: name, value: r.p99, unit: 'ms', target });
      return r.rps;
    };
    const helloRps = await measure('bare Hono hello (same adapter)', '', helloUrl, '');
    const subRps = await measure(
      '/sub/:subid (1 client, 4 inbounds) @100k',
      '<= 50 ms',
      `${subBase}/sub/sub-50000`,
      '>= 3000 req/s',
    );
    await measure('/json/:subid @100k', '<= 50 ms', `${subBase}/json/sub-50000`, '>= 1000 req/s');
    await measure('/clash/:subid (YAML) @100k', '<= 50 ms', `${subBase}/clash/sub-50000`, '>= 1000 req/s');
    await measure(
      '/sub/:subid without the cache (DB read + render per request) @100k',
      '',
      `${uncachedBase}/sub/sub-50000`,
      '',
    );
    rows.push({
      name: '/sub rate as % of bare hello',
      db: name,
      value: (subRps / helloRps) * 100,
      unit: '%',
      target: '>= 40 %',
    });
    return rows;
  } finally {
    for (const s of servers) await close(s);
    await conn.close();
  }
}

const bench: Benchmark = async (ctx) => {
  const rows: BenchRow[] = [];
  rows.push(...(await eachDatabase(ctx, 'panel_bench_sub', (db, url) => run(db, url, ctx.log))));
  return rows;
};

export default bench;
