// Traffic accounting figures at 100,000 clients over 10 inbounds (seeded directly through SQL):
// one tick applying 100,000 changed client counters (wire decode + diff + DB write + enforcement pass), and one
// enforcement pass when nothing changes.
import { eachDatabase } from './databases.js';
import { sql } from 'drizzle-orm';
import { connect, type Connection } from '../storage/conn.js';
import { createStore } from '../storage/store.js';
import { runMigrations } from '../storage/migrate.js';
import { TrafficService } from '../domain/traffic/service.js';
import { DEFAULT_SETTINGS } from '../domain/settings/schema.js';
import { EventBus } from '../domain/shared/events.js';
import { ManualClock } from '../domain/shared/clock.js';
import { FakeCore } from '../test/support/fake-core.js';
import protobuf from 'protobufjs';
import { PROTO_PATH } from '../host-agent/core/grpc-client.js';
import { decodeQueryStats } from '../host-agent/core/stats-decode.js';
import { median, type Benchmark, type BenchRow } from './types.js';

const CLIENTS = 100_000;
const INBOUNDS = 10;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const QueryStatsResponse = protobuf.loadSync(PROTO_PATH).lookupType('panelcore.QueryStatsResponse');

async function seed(c: Connection): Promise<void> {
  const series =
    c.dialect === 'pg'
      ? sql`SELECT i FROM generate_series(1, ${CLIENTS}::int) AS g(i)`
      : sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CLIENTS}) SELECT i FROM n`;
  for (let i = 1; i <= INBOUNDS; i++) {
    await c.exec(sql`INSERT INTO inbounds (tag, port, protocol) VALUES (${`inbound-${i}`}, ${20000 + i}, 'vless')`);
  }
  // Half the clients have a quota far from used, a third an expiry in the future: the pass has work to look at.
  await c.exec(sql`INSERT INTO clients (email, uuid, total_bytes, expiry_time, enable, created_at, updated_at)
    SELECT 'user' || i || '@bench', 'uuid-' || i,
      CASE WHEN i % 2 = 0 THEN 100000000000 ELSE 0 END,
      CASE WHEN i % 3 = 0 THEN ${sql.raw(String(NOW + 30 * 86_400_000))} ELSE 0 END,
      true, 1, 1 FROM (${series}) AS s`);
  await c.exec(sql`INSERT INTO client_traffics (email, up, down, enable) SELECT email, 0, 0, true FROM clients`);
  await c.exec(sql`INSERT INTO client_inbounds (client_id, inbound_id) SELECT id, 1 + (id % ${INBOUNDS}) FROM clients`);
}

async function run(name: 'libsql' | 'pg', url: string, log: (l: string) => void): Promise<BenchRow[]> {
  await runMigrations(url);
  const conn = await connect(url);
  try {
    log(`${name}: seeding ${CLIENTS} clients over ${INBOUNDS} inbounds`);
    await seed(conn);
    if (conn.dialect === 'pg') await conn.exec(sql`ANALYZE`);
    const store = createStore(conn);
    const core = new FakeCore();
    const clock = new ManualClock(NOW);
    const traffic = new TrafficService({
      store,
      core,
      clock,
      events: new EventBus(),
      settings: { effective: async () => ({ ...DEFAULT_SETTINGS }) },
    });
    const names = Array.from({ length: CLIENTS }, (_, i) => `user${i + 1}@bench`);
    // The core's answer as bytes on the wire (QueryStatsResponse), decoded inside the timed tick by the same
    // decoder the gRPC client uses: the tick figure includes turning 200,000 counters into CoreStat objects.
    let wire = Buffer.alloc(0);
    core.queryStats = async () => decodeQueryStats(wire);
    const setCounters = (round: number) => {
      const stat = [];
      for (const email of names) {
        stat.push({ name: `user>>>${email}>>>traffic>>>uplink`, value: round * 1000 });
        stat.push({ name: `user>>>${email}>>>traffic>>>downlink`, value: round * 5000 });
      }
      for (let i = 1; i <= INBOUNDS; i++)
        stat.push({ name: `inbound>>>inbound-${i}>>>traffic>>>downlink`, value: round * 1e6 });
      stat.push({ name: 'outbound>>>direct>>>traffic>>>downlink', value: round * 1e7 });
      wire = Buffer.from(QueryStatsResponse.encode(QueryStatsResponse.fromObject({ stat })).finish());
    };
    const ticks: number[] = [];
    const phases: string[] = [];
    for (let round = 1; round <= 6; round++) {
      setCounters(round);
      clock.advance(5000);
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const r = await traffic.tick();
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      if (r.deltas.clients.length !== CLIENTS)
        throw new Error(`tick applied ${r.deltas.clients.length} client counters`);
      if (round > 1) ticks.push(ms); // the first round warms caches
      phases.push(
        `${ms.toFixed(0)} [this process' CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)}] (poll+decode+diff ${r.timings.poll.toFixed(0)} + write ${r.timings.write.toFixed(0)} + enforce ${r.timings.enforce.toFixed(0)})`,
      );
    }
    const [check] = await conn.all<{ up: unknown }>(sql`SELECT up FROM client_traffics WHERE email = 'user1@bench'`);
    if (Number(check!.up) !== 6000) throw new Error(`counter check failed: ${String(check!.up)}`);
    log(`${name}: tick ms (wall): ${phases.join(', ')}`);
    if (conn.dialect === 'pg') {
      // HOT updates (same-page row versions, no index entry) are what fillfactor 50 on client_traffics buys.
      await new Promise((r) => setTimeout(r, 1100)); // the statistics are flushed at most once a second
      const [hot] = await conn.all<{ hot: unknown; upd: unknown }>(
        sql`SELECT n_tup_hot_upd AS hot, n_tup_upd AS upd FROM pg_stat_user_tables WHERE relname = 'client_traffics'`,
      );
      log(`${name}: client_traffics updates ${String(hot?.upd)}, of which HOT ${String(hot?.hot)}`);
    }
    log(
      `${name}: load average ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${(await import('node:os')).cpus().length} CPUs`,
    );

    const passes: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const r = await store.traffic.enforce(clock.now(), []);
      passes.push(performance.now() - t0);
      if (r.depleted.length || r.renewed.length) throw new Error('enforcement changed something');
    }
    log(`${name}: enforcement ${passes.map((t) => t.toFixed(1)).join(', ')} ms`);
    const sweeps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await store.traffic.enforce(clock.now(), 'all');
      sweeps.push(performance.now() - t0);
    }
    log(`${name}: full quota sweep ${sweeps.map((t) => t.toFixed(1)).join(', ')} ms`);
    return [
      {
        name: `tick applying ${CLIENTS / 1000}k changed client counters (wire decode + DB write + enforcement)`,
        db: name,
        value: median(ticks),
        unit: 'ms',
        target: name === 'pg' ? '<= 2000 ms' : '<= 1000 ms',
      },
      {
        name: `enforcement pass, nothing changes @${CLIENTS / 1000}k`,
        db: name,
        value: median(passes),
        unit: 'ms',
        target: '<= 100 ms',
      },
      {
        name: `enforcement full quota sweep (after a client change) @${CLIENTS / 1000}k`,
        db: name,
        value: median(sweeps),
        unit: 'ms',
      },
    ];
  } finally {
    await conn.close();
  }
}

const bench: Benchmark = async (ctx) => {
  const rows: BenchRow[] = [];
  rows.push(...(await eachDatabase(ctx, 'panel_bench_traffic', (db, url) => run(db, url, ctx.log))));
  return rows;
};

export default bench;
