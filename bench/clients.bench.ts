// Clients at scale: 1,000 and 100,000 clients over 10 inbounds (each client on 2), on libsql (temp file) and
// PostgreSQL (fresh database) when configured. The server runs in a CHILD process (bench/clients-server.ts:
// createPanelApp over the store, served by @hono/node-server on a loopback port), and every figure is a real HTTP
// request to it, so the resident memory reported is the server's own after it has served the whole operation mix.
// Seeding uses the bulk repository path (store.clients.insertMany over the benchmark's own connection), not 100k
// HTTP calls.
import { fork, type ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import { compileChild, startRuntime } from './compile-child.js';
import type { Benchmark, BenchContext, BenchRow } from './types.js';
import { median } from './types.js';
import { eachDatabase, type BenchDb } from './databases.js';
import type { ServerCommand, ServerReply } from './clients-server.js';
import { call, login, type Session, type TestApp } from '../test/support/app.js';
import { openStore } from '../storage/store.js';
import type { Store } from '../domain/ports/store.js';
import type { NewClient } from '../domain/ports/clients-repo.js';
import { FULL_REBUILD_MS } from '../domain/clients/catalog-cache.js';

const SIZES = (process.env.BENCH_CLIENT_SIZES ?? '1000,100000').split(',').map(Number);
const INBOUNDS = 10;
const DAY = 86_400_000;

/** Wall time of one HTTP round trip, for the log next to the server's own figures. */
const roundTrips: number[] = [];

/**
 * Runs one request; returns the SERVER's time for it (`x-server-ms`, measured inside the server process around
 * app.fetch: the figure app.request() gave in-process), and records the client-side round trip.
 */
async function timed(fn: () => Promise<{ headers: Headers } | unknown>): Promise<number> {
  const t0 = performance.now();
  const r = await fn();
  roundTrips.push(performance.now() - t0);
  const ms = Number((r as { headers?: Headers })?.headers?.get('x-server-ms'));
  if (!Number.isFinite(ms)) throw new Error('response without x-server-ms');
  return ms;
}

const logTrips = (log: (l: string) => void, what: string) => {
  log(`${what}: loopback HTTP round trip median ${median(roundTrips.splice(0)).toFixed(1)} ms`);
};

/** Lets listeners of the previous phase's events (core sync, WebSocket hub) finish before the next measurement. */
const settle = (ms = 1500) => new Promise((r) => setTimeout(r, ms));

async function ok(p: Promise<{ json: any }>, what: string): Promise<any> {
  const r = await p;
  if (!r.json?.success) throw new Error(`${what} failed: ${r.json?.msg}`);
  return r.json.obj;
}

/** Like ok(), but resolves to the whole response (for its x-server-ms header). */
async function okRes<T extends { json: any }>(p: Promise<T>, what: string): Promise<T> {
  await ok(p, what);
  return p;
}

async function analyze(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe('ANALYZE');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The server child process: HTTP through `t.app.request` (so the test helpers work), IPC for the clock and memory. */
interface Server {
  t: TestApp;
  send(cmd: ServerCommand['cmd'], ms?: number, emails?: string[]): Promise<ServerReply>;
  stop(): Promise<void>;
}

async function startServer(db: BenchDb, url: string): Promise<Server> {
  // Plain node on the compiled build with the environment and node options of `npm start` (bench/compile-child.ts).
  const runtime = startRuntime();
  const child: ChildProcess = fork(compileChild('bench/clients-server.ts'), [], {
    execArgv: runtime.execArgv,
    env: { ...process.env, ...runtime.env, BENCH_DB_URL: url, BENCH_DB_NAME: db },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: any) => (m?.ready ? resolve(m.port) : reject(new Error('server did not start'))));
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  let next = 0;
  const pending = new Map<number, (r: ServerReply) => void>();
  child.on('message', (m: any) => {
    pending.get(m?.id)?.(m);
    pending.delete(m?.id);
  });
  const send = (cmd: ServerCommand['cmd'], ms?: number, emails?: string[]) =>
    new Promise<ServerReply>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      child.send({ id, cmd, ms, emails } satisfies ServerCommand);
    });
  const base = `http://127.0.0.1:${port}`;
  const t = { app: { request: (path: string, init?: RequestInit) => fetch(base + path, init) } } as unknown as TestApp;
  return {
    t,
    send,
    async stop() {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await send('stop').catch(() => {});
      await exited;
      clearTimeout(timer);
    },
  };
}

async function seed(srv: Server, store: Store, s: Session, n: number, log: (l: string) => void): Promise<number[]> {
  const t = srv.t;
  const ids: number[] = [];
  for (let i = 0; i < INBOUNDS; i++) {
    const ib = await ok(
      call(
        t,
        'POST',
        '/panel/api/inbounds/add',
        {
          port: 50001 + i,
          protocol: i % 2 ? 'vmess' : 'vless',
          remark: `bench-${i}`,
          settings: { decryption: 'none' },
          streamSettings: { network: 'ws' },
        },
        s,
      ),
      'inbound add',
    );
    ids.push(ib.id);
  }
  const now = (await srv.send('now')).now!;
  const started = performance.now();
  const CH = 10_000;
  for (let from = 0; from < n; from += CH) {
    const items: NewClient[] = [];
    for (let i = from; i < Math.min(n, from + CH); i++) {
      items.push({
        row: {
          email: `user${i}@bench.example`,
          subId: `sub${i}`,
          uuid: globalThis.crypto.randomUUID(),
          password: '',
          auth: '',
          flow: '',
          security: 'auto',
          method: '',
          totalGB: i % 3 === 0 ? 50 * 1024 ** 3 : 0,
          expiryTime: i % 4 === 0 ? now + ((i % 60) - 5) * DAY : 0,
          enable: i % 17 !== 0,
          limitIp: 0,
          tgId: 0,
          comment: i % 5 === 0 ? `customer ${i}` : '',
          group: i % 2 === 0 ? 'big' : `g${i % 7}`,
          reverse: null,
          reset: 0,
          createdAt: now,
          updatedAt: now,
        },
        inboundIds: [ids[i % INBOUNDS]!, ids[(i + 1) % INBOUNDS]!],
      });
    }
    await store.clients.insertMany(items);
    await store.traffic.applyDeltas(
      {
        clients: items.map((it, k) => ({
          email: it.row.email,
          up: (k * 7919) % (40 * 1024 ** 3),
          down: (k * 104729) % (30 * 1024 ** 3),
        })),
        inbounds: [],
        outbounds: [],
      },
      now,
    );
  }
  await srv.send('advance', 60_000);
  log(`seeded ${n} clients in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const read = performance.now();
  await srv.send('reload');
  log(`the server read its catalog of ${n} clients in ${((performance.now() - read) / 1000).toFixed(2)} s`);
  return ids;
}

async function runOne(
  ctx: BenchContext,
  dbName: BenchDb,
  url: string,
  n: number,
  memory: BenchRow[],
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const srv = await startServer(dbName, url);
  const t = srv.t;
  const tag = n >= 1000 ? `@${n / 1000}k` : `@${n}`;
  const row = (name: string, value: number, unit: string, target?: string) =>
    rows.push({ name: `${name} ${tag}`, db: dbName, value, unit, target });
  try {
    const s = await login(t);
    const store = await openStore(url, { migrate: false });
    let ids: number[];
    try {
      ids = await seed(srv, store, s, n, ctx.log);
      // What autovacuum's analyze would have done after 100,000 inserts on a default server (this machine's
      // PostgreSQL runs with autovacuum off): the planner needs row counts and column statistics.
      if (dbName === 'pg') await analyze(url);
    } finally {
      await store.close();
    }
    await settle();
    const fast = dbName === 'pg' ? '<= 10 ms' : '<= 5 ms';
    const R = 40;

    // warm-up
    for (let i = 0; i < 5; i++)
      await ok(
        call(t, 'POST', '/panel/api/clients/add', { client: { email: `warm${i}@x` }, inboundIds: [ids[0], ids[1]] }, s),
        'add',
      );

    const adds: number[] = [];
    for (let i = 0; i < R; i++) {
      adds.push(
        await timed(() =>
          okRes(
            call(
              t,
              'POST',
              '/panel/api/clients/add',
              {
                client: { email: `new${i}@x`, totalGB: 1e9 },
                inboundIds: [ids[i % INBOUNDS], ids[(i + 3) % INBOUNDS]],
              },
              s,
            ),
            'add',
          ),
        ),
      );
    }
    row('clients/add (2 inbounds)', median(adds), 'ms', fast);
    logTrips(ctx.log, 'add');

    const updates: number[] = [];
    for (let i = 0; i < R; i++) {
      const email = `user${(i * 997) % n}@bench.example`;
      updates.push(
        await timed(() =>
          okRes(
            call(
              t,
              'POST',
              `/panel/api/clients/update/${encodeURIComponent(email)}`,
              { email, totalGB: 2e9 + i, comment: `upd ${i}` },
              s,
            ),
            'update',
          ),
        ),
      );
    }
    row('clients/update/:email', median(updates), 'ms', fast);
    logTrips(ctx.log, 'update');

    const dels: number[] = [];
    for (let i = 0; i < R; i++) {
      const email = `new${i}@x`;
      dels.push(
        await timed(() =>
          okRes(call(t, 'POST', `/panel/api/clients/del/${encodeURIComponent(email)}`, undefined, s), 'del'),
        ),
      );
    }
    row('clients/del/:email', median(dels), 'ms', fast);
    logTrips(ctx.log, 'del');
    await settle();

    const pages: number[] = [];
    const queries = [
      'search=user1&filter=active&sort=traffic&order=descend',
      'search=customer&filter=depleted&sort=email',
      'search=bench&filter=expiring&sort=expiryTime',
      'search=9@bench&filter=deactive&sort=remaining&order=descend',
    ];
    const page = (q: string) =>
      okRes(call(t, 'GET', `/panel/api/clients/list/paged?page=1&pageSize=25&${q}`, undefined, s), 'paged');
    const first = await ok(page(queries[0]!), 'paged');
    if (first.total !== n + 5) throw new Error(`the paged list counts ${first.total} clients, expected ${n + 5}`);
    roundTrips.length = 0;
    for (let i = 0; i < 12; i++) pages.push(await timed(() => page(queries[i % queries.length]!)));
    row('clients/list/paged (search+filter+sort, summary included)', median(pages), 'ms', '<= 50 ms');
    logTrips(ctx.log, 'paged');
    // A client mutation marks its email; the next page request re-reads that client only.
    const patched: number[] = [];
    for (let i = 0; i < 8; i++) {
      const email = `user${(i * 7919 + 13) % n}@bench.example`;
      await ok(
        call(t, 'POST', `/panel/api/clients/update/${encodeURIComponent(email)}`, { email, enable: i % 2 === 0 }, s),
        'update',
      );
      patched.push(await timed(() => page(queries[i % queries.length]!)));
    }
    row('clients/list/paged (same, right after a client update)', median(patched), 'ms', '<= 50 ms');
    logTrips(ctx.log, 'paged, after an update');
    // A traffic tick (stored and announced inside the server process, as its traffic job does) adds its counters to
    // the catalog in memory: the page after it reads nothing more.
    const afterTick = async (moved: number, label: string) => {
      const times: number[] = [];
      for (let i = 0; i < 6; i++) {
        await srv.send('advance', 10_000);
        await srv.send(
          'traffic',
          undefined,
          Array.from({ length: moved }, (_, k) => `user${(i * 7717 + k * 13) % n}@bench.example`),
        );
        times.push(await timed(() => page(queries[i % queries.length]!)));
      }
      row(`clients/list/paged (same, right after a traffic tick moving ${label})`, median(times), 'ms', '<= 50 ms');
      logTrips(ctx.log, `paged, after a tick moving ${label}`);
    };
    await afterTick(Math.min(1000, n), '1,000 clients');
    await afterTick(n, 'every client');
    // The bucket thresholds only enter the classification done in each request: nothing is read again.
    const thresholds: number[] = [];
    for (let i = 0; i < 8; i++) {
      await ok(call(t, 'POST', '/panel/setting/update', { expireDiff: (i % 2) + 1 }, s), 'settings');
      thresholds.push(await timed(() => page(queries[i % queries.length]!)));
    }
    row('clients/list/paged (same, right after an expireDiff change)', median(thresholds), 'ms', '<= 50 ms');
    logTrips(ctx.log, 'paged, after a threshold change');
    // The backstop: a catalog read FULL_REBUILD_MS ago is read again in the background; pages meanwhile.
    await srv.send('advance', FULL_REBUILD_MS);
    const during: number[] = [];
    for (let i = 0; i < 6; i++) during.push(await timed(() => page(queries[i % queries.length]!)));
    row('clients/list/paged (same, while the background catalog read runs)', median(during), 'ms', '<= 50 ms');
    logTrips(ctx.log, 'paged, during the backstop read');
    await settle(3000);
    const plain: number[] = [];
    for (let i = 0; i < 6; i++)
      plain.push(await timed(() => okRes(call(t, 'GET', '/panel/api/clients/list/paged', undefined, s), 'paged')));
    row('clients/list/paged (no filter)', median(plain), 'ms');
    roundTrips.length = 0;

    // The request and reading the whole body (10 MB for 20,000 clients) over loopback HTTP, not the JSON.parse.
    // Repeated reads find the inbound's settings.clients text kept (only clientStats is built); a read right after
    // a client update of that inbound patches that client's entry in; one right after a bulk traffic reset of more
    // clients than a patch takes builds both arrays.
    let body = '';
    const getInbound = () =>
      timed(async () => {
        const res = await t.app.request(`/panel/api/inbounds/get/${ids[2]}`, { headers: { cookie: s.cookie } });
        body = await res.text();
        return res;
      });
    const gets: number[] = [];
    for (let i = 0; i < 5; i++) gets.push(await getInbound());
    const got = JSON.parse(body);
    if (!got.success) throw new Error(`inbounds/get failed: ${got.msg}`);
    const label = `${got.obj.settings.clients.length} clients, ${(body.length / 1e6).toFixed(1)} MB`;
    row(`inbounds/get/:id (${label})`, median(gets), 'ms', '<= 150 ms');
    logTrips(ctx.log, 'inbounds/get (with the body read)');
    ctx.log(`inbounds/get server times in order: ${gets.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    const fresh: number[] = [];
    for (let i = 0; i < 5; i++) {
      const email = got.obj.settings.clients[(i * 97) % got.obj.settings.clients.length].email as string;
      await ok(
        call(t, 'POST', `/panel/api/clients/update/${encodeURIComponent(email)}`, { email, comment: `get ${i}` }, s),
        'update',
      );
      fresh.push(await getInbound());
    }
    row(
      `inbounds/get/:id (${label}, right after a client update: its entry patched in)`,
      median(fresh),
      'ms',
      '<= 150 ms',
    );
    logTrips(ctx.log, 'inbounds/get after an update (with the body read)');
    ctx.log(`inbounds/get after an update, server times in order: ${fresh.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    const rebuilt: number[] = [];
    for (let i = 0; i < 5; i++) {
      const emails = Array.from(
        { length: 20 },
        (_, j) => got.obj.settings.clients[((i * 20 + j) * 89) % got.obj.settings.clients.length].email as string,
      );
      await ok(call(t, 'POST', '/panel/api/clients/bulkResetTraffic', { emails }, s), 'bulkResetTraffic');
      rebuilt.push(await getInbound());
    }
    row(
      `inbounds/get/:id (${label}, right after a traffic reset of 20 clients: both arrays built)`,
      median(rebuilt),
      'ms',
      '<= 150 ms',
    );
    body = '';
    logTrips(ctx.log, 'inbounds/get after a bulk traffic reset (with the body read)');
    ctx.log(
      `inbounds/get after a bulk traffic reset, server times in order: ${rebuilt.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );

    const bulk = Array.from({ length: 10_000 }, (_, i) => ({
      client: { email: `bulk${i}@x`, totalGB: 1e10 },
      inboundIds: [ids[i % INBOUNDS], ids[(i + 5) % INBOUNDS]],
    }));
    let created = 0;
    const bulkMs = await timed(async () => {
      const r = await okRes(call(t, 'POST', '/panel/api/clients/bulkCreate', bulk, s), 'bulkCreate');
      created = r.json.obj.created;
      return r;
    });
    if (created !== 10_000) throw new Error(`bulkCreate created ${created}`);
    row('clients/bulkCreate 10,000', bulkMs, 'ms', '<= 5000 ms');
    roundTrips.length = 0;
    await settle(3000);

    let affected = 0;
    const renameMs = await timed(async () => {
      const r = await okRes(
        call(t, 'POST', '/panel/api/clients/groups/rename', { oldName: 'big', newName: 'huge' }, s),
        'rename',
      );
      affected = r.json.obj.affected;
      return r;
    });
    row(`groups/rename (${affected} clients)`, renameMs, 'ms', '<= 1000 ms');
    await settle();

    // The server process's own memory after the whole mix (a full GC first: what it keeps, not pending garbage;
    // read once the pages that GC freed are back with the OS, see clients-server.ts), and its peak during the mix.
    const mem = await srv.send('memory');
    const mb = (v = 0) => `${(v / 1024 / 1024).toFixed(1)} MB`;
    ctx.log(
      `server memory: rss ${mb(mem.rss)} (${mb(mem.rssAtGc)} right after the GC, peak ${mb(mem.maxRss)}), heap ${mb(mem.heapUsed)} used of ${mb(mem.heapTotal)}, external ${mb(mem.external)} (array buffers ${mb(mem.arrayBuffers)})`,
    );
    memory.push({
      name: `server process resident memory after the mix ${tag}`,
      db: dbName,
      value: mem.rss! / 1024 / 1024,
      unit: 'MB',
      target: '<= 300 MB',
    });
    memory.push({
      name: `server process JS heap after the mix (after a full GC) ${tag}`,
      db: dbName,
      value: mem.heapUsed! / 1024 / 1024,
      unit: 'MB',
    });
    memory.push({
      name: `server process peak resident memory during the mix ${tag}`,
      db: dbName,
      value: mem.maxRss! / 1024 / 1024,
      unit: 'MB',
    });
  } finally {
    await srv.stop();
  }
  return rows;
}

const bench: Benchmark = async (ctx) => {
  const rows: BenchRow[] = [];
  const memory: BenchRow[] = [];
  for (const n of SIZES) {
    rows.push(
      ...(await eachDatabase(ctx, `bench_clients_${n}`, (db, url) => {
        ctx.log(`${db === 'pg' ? 'PostgreSQL' : 'libsql'}, ${n} clients`);
        return runOne(ctx, db, url, n, memory);
      })),
    );
  }
  return [...rows, ...memory];
};

export default bench;
