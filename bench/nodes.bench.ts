// Nodes: GET /panel/api/nodes/list with SQL roll-ups over 20,000 clients on 4 node-bound inbounds (8 nodes), on
// libsql and PostgreSQL; then the node pusher converging 2,000 new clients onto a second real panel on a local
// port (one batch: bulkCreate) with the bound inbound created there by the inbound sync, a probe round trip; and,
// on both databases, one node pull applying 10,000 changed counters (baselines, central counters, quota check).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, BenchContext, BenchRow } from './types.js';
import { median } from './types.js';
import { eachDatabase } from './databases.js';
import { call, createTestApp, login } from '../test/support/app.js';
import type { TestDatabase } from '../test/support/databases.js';
import type { NewClient } from '../domain/ports/clients-repo.js';
import { createGuardedFetch } from '../host-agent/guarded-fetch.js';
import { startRemotePanel } from '../test/handlers/nodes-remote.js';

const CLIENTS = Number(process.env.BENCH_NODE_CLIENTS ?? 20_000);
const PUSH = Number(process.env.BENCH_NODE_PUSH ?? 10_000);
const PULLED = Number(process.env.BENCH_NODE_PULLED ?? 10_000);
const NODES = 8;

const vless = (port: number, extra: Record<string, unknown> = {}) => ({
  port,
  protocol: 'vless',
  settings: { decryption: 'none' },
  streamSettings: { network: 'tcp', security: 'none' },
  ...extra,
});

async function ok(p: Promise<{ json: any }>, what: string): Promise<any> {
  const r = await p;
  if (!r.json?.success) throw new Error(`${what} failed: ${r.json?.msg}`);
  return r.json.obj;
}

async function rollups(ctx: BenchContext, dbName: 'libsql' | 'pg', url: string): Promise<BenchRow[]> {
  const db: TestDatabase = { name: dbName, freshUrl: async () => url };
  const t = await createTestApp(db);
  try {
    const s = await login(t);
    const nodeIds: number[] = [];
    for (let i = 0; i < NODES; i++) {
      nodeIds.push(
        (
          await ok(
            call(
              t,
              'POST',
              '/panel/api/nodes/add',
              { name: `n${i}`, address: `n${i}.example`, port: 443, apiToken: 'x' },
              s,
            ),
            'node add',
          )
        ).id,
      );
    }
    const ibs: number[] = [];
    for (let i = 0; i < 4; i++)
      ibs.push(
        (
          await ok(
            call(t, 'POST', '/panel/api/inbounds/add', vless(40001 + i, { nodeId: nodeIds[i] }), s),
            'inbound add',
          )
        ).id,
      );
    const now = t.clock.now();
    for (let from = 0; from < CLIENTS; from += 5000) {
      const items: NewClient[] = [];
      for (let i = from; i < Math.min(CLIENTS, from + 5000); i++) {
        items.push({
          row: {
            email: `u${i}@bench`,
            subId: `s${i}`,
            uuid: globalThis.crypto.randomUUID(),
            password: '',
            auth: '',
            flow: '',
            security: '',
            method: '',
            totalGB: 0,
            expiryTime: i % 10 === 0 ? now - 1000 : 0,
            enable: true,
            limitIp: 0,
            tgId: 0,
            comment: '',
            group: '',
            reverse: null,
            reset: 0,
            createdAt: now,
            updatedAt: now,
          },
          inboundIds: [ibs[i % 4]!, ibs[(i + 1) % 4]!],
        });
      }
      await t.store.clients.insertMany(items);
      await t.store.traffic.applyDeltas(
        {
          clients: items.filter((_, k) => k % 3 === 0).map((it) => ({ email: it.row.email, up: 1, down: 1 })),
          inbounds: [],
          outbounds: [],
        },
        now,
      );
    }
    await t.store.traffic.enforce(now, 'all');
    const times: number[] = [];
    let list: any[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      list = await ok(call(t, 'GET', '/panel/api/nodes/list', undefined, s), 'list');
      times.push(performance.now() - t0);
    }
    const sum = list.reduce((a, n) => a + n.clientCount, 0);
    ctx.log(
      `${dbName}: ${list.length} nodes, clientCount sum ${sum}, depleted ${list.reduce((a, n) => a + n.depletedCount, 0)}`,
    );
    return [
      {
        name: `nodes/list with roll-ups (${NODES} nodes, ${CLIENTS} clients)`,
        db: dbName,
        value: median(times),
        unit: 'ms',
        target: '<= 100 ms',
      },
    ];
  } finally {
    await t.close();
  }
}

async function push(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-nodes-'));
  let n = 0;
  const db: TestDatabase = { name: 'libsql', freshUrl: async () => `file:${join(dir, `p${n++}.db`)}` };
  const remote = await startRemotePanel(db);
  const t = await createTestApp(db, { deps: { http: createGuardedFetch(), pusherOptions: { coalesceMs: 5 } } });
  try {
    const s = await login(t);
    const rs = await login(remote.t);
    const nodeId = (
      await ok(
        call(
          t,
          'POST',
          '/panel/api/nodes/add',
          {
            name: 'edge',
            scheme: 'http',
            address: '127.0.0.1',
            port: remote.port,
            apiToken: remote.token,
            allowPrivateAddress: true,
          },
          s,
        ),
        'node add',
      )
    ).id;
    const ib = (await ok(call(t, 'POST', '/panel/api/inbounds/add', vless(41001, { nodeId }), s), 'inbound')).id;
    const probes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await ok(call(t, 'POST', `/panel/api/nodes/probe/${nodeId}`, undefined, s), 'probe');
      probes.push(performance.now() - t0);
    }
    t.services.nodePusher.attach(t.events);
    const items = Array.from({ length: PUSH }, (_, i) => ({ client: { email: `p${i}@bench` }, inboundIds: [ib] }));
    const t0 = performance.now();
    await ok(call(t, 'POST', '/panel/api/clients/bulkCreate', items, s), 'bulkCreate');
    await t.services.nodePusher.idle();
    const pushMs = performance.now() - t0;
    const onRemote = (await ok(call(remote.t, 'GET', '/panel/api/clients/list', undefined, rs), 'remote list')).length;
    const remoteIbs = (
      await ok(call(remote.t, 'GET', '/panel/api/inbounds/list/slim', undefined, rs), 'remote inbounds')
    ).length;
    if (onRemote !== PUSH || remoteIbs !== 1)
      throw new Error(`push incomplete: ${onRemote}/${PUSH} clients, ${remoteIbs} inbounds on the node`);
    ctx.log(`pushed ${onRemote}/${PUSH} clients in ${pushMs.toFixed(0)} ms`);
    const t1 = performance.now();
    await ok(call(t, 'POST', '/panel/api/clients/update/p0@bench', { email: 'p0@bench', comment: 'x' }, s), 'update');
    await t.services.nodePusher.idle();
    const oneMs = performance.now() - t1;
    return [
      {
        name: 'nodes/probe/:id round trip (local remote panel)',
        db: 'libsql',
        value: median(probes),
        unit: 'ms',
        target: '<= 50 ms',
      },
      {
        name: `bulkCreate of ${PUSH} node clients, pushed to an empty node`,
        db: 'libsql',
        value: pushMs,
        unit: 'ms',
        target: PUSH === 10_000 ? '<= 30000 ms' : undefined,
      },
      { name: 'one client update pushed to the node', db: 'libsql', value: oneMs, unit: 'ms', target: '<= 250 ms' },
    ];
  } finally {
    await t.services.nodePusher.stop();
    await t.close();
    await remote.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One pull's central work for PULLED clients whose node counters all moved: applyCounters + the quota check and events.
 */
async function pullApply(ctx: BenchContext, dbName: 'libsql' | 'pg', url: string): Promise<BenchRow[]> {
  const db: TestDatabase = { name: dbName, freshUrl: async () => url };
  const t = await createTestApp(db, { recordEvents: false });
  try {
    const s = await login(t);
    const nodeId = (
      await ok(
        call(t, 'POST', '/panel/api/nodes/add', { name: 'n', address: 'n.example', port: 443, apiToken: 'x' }, s),
        'node add',
      )
    ).id;
    const ib = (await ok(call(t, 'POST', '/panel/api/inbounds/add', vless(42001, { nodeId }), s), 'inbound add')).id;
    const now = t.clock.now();
    const emails: string[] = [];
    for (let from = 0; from < PULLED; from += 5000) {
      const items: NewClient[] = [];
      for (let i = from; i < Math.min(PULLED, from + 5000); i++) {
        emails.push(`c${i}@bench`);
        items.push({
          row: {
            email: `c${i}@bench`,
            subId: `s${i}`,
            uuid: globalThis.crypto.randomUUID(),
            password: '',
            auth: '',
            flow: '',
            security: '',
            method: '',
            totalGB: 10 ** 12,
            expiryTime: 0,
            enable: true,
            limitIp: 0,
            tgId: 0,
            comment: '',
            group: '',
            reverse: null,
            reset: 0,
            createdAt: now,
            updatedAt: now,
          },
          inboundIds: [ib],
        });
      }
      await t.store.clients.insertMany(items);
    }
    const times: number[] = [];
    for (let round = 1; round <= 6; round++) {
      const counters = emails.map((email, i) => ({ email, up: round * 1000 + i, down: round * 2000 + i }));
      const t0 = performance.now();
      const moves = await t.store.nodeSync.applyCounters(nodeId, counters, new Map(), now + round * 10_000);
      await t.services.traffic.applied(moves, now + round * 10_000);
      if (round > 1) times.push(performance.now() - t0); // round 1 writes the first baselines
      if (moves.length !== PULLED) throw new Error(`round ${round}: ${moves.length} moved`);
    }
    const one = await t.store.clients.traffic('c7@bench');
    ctx.log(`${dbName}: c7 counters ${one?.up}/${one?.down} after 6 pulls (expected ${6 * 1000 + 7}/${6 * 2000 + 7})`);
    return [
      {
        name: `one node pull applying ${PULLED} changed counters (central time)`,
        db: dbName,
        value: median(times),
        unit: 'ms',
        target: '<= 1000 ms',
      },
    ];
  } finally {
    await t.close();
  }
}

/**
 * Central RSS while pulling 3 nodes × 10,000 clients every round: the nodes are answers prebuilt in memory (a fake
 * HttpClient serving clients/list with counters that grow each round), so the process holds the central panel
 * plus three ~3 MB answer texts; RSS is read after 10 rounds.
 */
async function pullRss(ctx: BenchContext): Promise<BenchRow[]> {
  const PER_NODE = PULLED;
  const dir = mkdtempSync(join(tmpdir(), 'bench-nodes-rss-'));
  const db: TestDatabase = { name: 'libsql', freshUrl: async () => `file:${join(dir, 'central.db')}` };
  let round = 0;
  const http = {
    async request(req: { url: string }) {
      const u = new URL(req.url);
      const node = Number(u.port) - 50000;
      let obj: unknown = [];
      if (u.pathname.endsWith('/clients/list')) {
        obj = Array.from({ length: PER_NODE }, (_, i) => ({
          email: `r${node}-${i}@bench`,
          inboundIds: [1],
          traffic: { up: round * 100 + i, down: round * 300 + i, enable: true, lastOnline: 0 },
        }));
      }
      const body = new TextEncoder().encode(JSON.stringify({ success: true, msg: '', obj }));
      return { status: 200, headers: {}, body, url: req.url };
    },
  };
  const t = await createTestApp(db, { recordEvents: false, deps: { http } });
  try {
    const s = await login(t);
    const now = t.clock.now();
    for (let n = 0; n < 3; n++) {
      const nodeId = (
        await ok(
          call(
            t,
            'POST',
            '/panel/api/nodes/add',
            {
              name: `r${n}`,
              scheme: 'http',
              address: '127.0.0.1',
              port: 50000 + n,
              apiToken: 'x',
              allowPrivateAddress: true,
            },
            s,
          ),
          'node add',
        )
      ).id;
      await t.store.nodes.saveHealth(nodeId, {
        status: 'online',
        lastHeartbeat: 1,
        latencyMs: 1,
        coreVersion: '',
        panelVersion: '',
        cpuPct: 0,
        memPct: 0,
        uptimeSecs: 0,
        lastError: '',
      });
      const ib = (await ok(call(t, 'POST', '/panel/api/inbounds/add', vless(43001 + n, { nodeId }), s), 'inbound add'))
        .id;
      const items: NewClient[] = Array.from({ length: PER_NODE }, (_, i) => ({
        row: {
          email: `r${n}-${i}@bench`,
          subId: `rs${n}-${i}`,
          uuid: globalThis.crypto.randomUUID(),
          password: '',
          auth: '',
          flow: '',
          security: '',
          method: '',
          totalGB: 0,
          expiryTime: 0,
          enable: true,
          limitIp: 0,
          tgId: 0,
          comment: '',
          group: '',
          reverse: null,
          reset: 0,
          createdAt: now,
          updatedAt: now,
        },
        inboundIds: [ib],
      }));
      await t.store.clients.insertMany(items);
    }
    const times: number[] = [];
    for (round = 1; round <= 10; round++) {
      const t0 = performance.now();
      const r = await t.services.nodePuller.pull();
      times.push(performance.now() - t0);
      if (r.errors.length) throw new Error(`pull errors: ${JSON.stringify(r.errors)}`);
    }
    (globalThis as { gc?: () => void }).gc?.();
    const rss = process.memoryUsage().rss / 1024 / 1024;
    ctx.log(`3 nodes × ${PER_NODE}: pull round median ${median(times).toFixed(0)} ms, RSS ${rss.toFixed(0)} MB`);
    return [
      {
        name: `one pull round, 3 nodes × ${PER_NODE} clients moved (central, fake nodes)`,
        db: 'libsql',
        value: median(times),
        unit: 'ms',
      },
      {
        name: `bench process RSS after 10 pull rounds of 3 nodes × ${PER_NODE} clients`,
        db: 'libsql',
        value: rss,
        unit: 'MB',
        target: '<= 300 MB',
      },
    ];
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = async (ctx) => {
  const rows: BenchRow[] = [];
  // First, while the process is still small: RSS is the process's, whatever ran before.
  rows.push(...(await pullRss(ctx)));
  rows.push(
    ...(await eachDatabase(ctx, 'bench_nodes_pull', (db, url) => {
      ctx.log(db === 'pg' ? 'PostgreSQL pull apply' : 'libsql pull apply');
      return pullApply(ctx, db, url);
    })),
  );
  rows.push(
    ...(await eachDatabase(ctx, 'bench_nodes', (db, url) => {
      ctx.log(db === 'pg' ? 'PostgreSQL roll-ups' : 'libsql roll-ups');
      return rollups(ctx, db, url);
    })),
  );
  ctx.log('push to a second panel');
  rows.push(...(await push(ctx)));
  return rows;
};

export default bench;
