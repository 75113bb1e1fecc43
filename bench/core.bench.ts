// Core figures at 100,000 clients over 10 inbounds: building the full core config from the database (one read
// plus the pure builder), and one client change applied to a running core (event → database read → gRPC
// AddUser), with the real core when PANEL_TEST_CORE_BIN (or v2ray on PATH) is available.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { connect, type Connection } from '../storage/conn.js';
import { createStore } from '../storage/store.js';
import { runMigrations } from '../storage/migrate.js';
import { CoreService } from '../domain/core/service.js';
import { buildCoreConfig } from '../domain/core/builder.js';
import { defaultTemplate } from '../domain/core/template.js';
import { EventBus } from '../domain/shared/events.js';
import { CoreSupervisor } from '../host-agent/core/supervisor.js';
import { resolveBinary } from '../host-agent/core/binary.js';
import { FakeCore } from '../test/support/fake-core.js';
import { freePorts } from '../test/e2e/support/ports.js';
import { eachDatabase } from './databases.js';
import { median, type Benchmark, type BenchRow } from './types.js';

const CLIENTS = 100_000;
const INBOUNDS = 10;

async function seed(c: Connection, ports: number[]): Promise<void> {
  for (let i = 1; i <= INBOUNDS; i++) {
    await c.exec(
      sql`INSERT INTO inbounds (tag, port, listen, protocol, settings) VALUES (${`inbound-${i}`}, ${ports[i - 1]!}, '127.0.0.1', 'vless', '{"decryption":"none"}')`,
    );
  }
  const { clients, clientInbounds } = c.t;
  for (let start = 1; start <= CLIENTS; start += 1000) {
    const rows: { email: string; uuid: string; enable: boolean; createdAt: number; updatedAt: number }[] = [];
    for (let i = start; i < start + 1000 && i <= CLIENTS; i++)
      rows.push({ email: `user${i}@bench`, uuid: randomUUID(), enable: true, createdAt: 1, updatedAt: 1 });
    await c.write((db) => db.insert(clients).values(rows));
  }
  await c.exec(sql`INSERT INTO client_inbounds (client_id, inbound_id) SELECT id, 1 + (id % ${INBOUNDS}) FROM clients`);
  void clientInbounds;
}

async function run(
  name: 'libsql' | 'pg',
  url: string,
  coreBin: string | null,
  log: (l: string) => void,
): Promise<BenchRow[]> {
  await runMigrations(url);
  const conn = await connect(url);
  const rows: BenchRow[] = [];
  const ports = await freePorts(INBOUNDS + 1);
  try {
    log(`${name}: seeding ${CLIENTS} clients over ${INBOUNDS} inbounds`);
    await seed(conn, ports);
    if (conn.dialect === 'pg') await conn.exec(sql`ANALYZE`);
    const store = createStore(conn);

    const loads: number[] = [];
    const builds: number[] = [];
    const totals: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const view = await store.coreView.load();
      const t1 = performance.now();
      const r = buildCoreConfig(defaultTemplate(ports[INBOUNDS]!), view, {
        flavour: 'xray',
        apiPort: ports[INBOUNDS]!,
      });
      const t2 = performance.now();
      JSON.stringify(r.config);
      loads.push(t1 - t0);
      builds.push(t2 - t1);
      totals.push(performance.now() - t0);
    }
    rows.push({
      name: 'full core config build @100k (read + build + serialise)',
      db: name,
      value: median(totals),
      unit: 'ms',
      target: '<= 1000 ms',
    });
    rows.push({ name: '  of which database read', db: name, value: median(loads), unit: 'ms' });
    rows.push({ name: '  of which pure builder', db: name, value: median(builds), unit: 'ms' });

    // One client change applied to the running core.
    const events = new EventBus();
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-core-'));
    const supervisor = coreBin ? new CoreSupervisor({ bin: coreBin, dataDir }) : null;
    if (supervisor) await supervisor.init();
    const core = supervisor ?? new FakeCore();
    const svc = new CoreService(store, core, events, { apiPort: ports[INBOUNDS]! });
    try {
      log(`${name}: starting ${supervisor ? `the real core (${coreBin})` : 'a fake core'} on the 100k config`);
      const t0 = performance.now();
      await svc.start();
      log(
        `${name}: core started in ${Math.round(performance.now() - t0)} ms (state ${core.status().state} ${core.status().error})`,
      );
      const { clients, clientInbounds } = conn.t;
      const times: number[] = [];
      for (let i = 0; i < 30; i++) {
        const email = `live${i}@bench`;
        const [row] = await conn.write((db) =>
          db
            .insert(clients)
            .values({ email, uuid: randomUUID(), enable: true, createdAt: 1, updatedAt: 1 })
            .returning({ id: clients.id }),
        );
        await conn.write((db) =>
          db.insert(clientInbounds).values({ clientId: row!.id, inboundId: 1 + (i % INBOUNDS) }),
        );
        const s = performance.now();
        await svc.sync.clientsChanged([email]);
        times.push(performance.now() - s);
      }
      rows.push({
        name: `one client change applied to the running core (${supervisor ? 'real core' : 'fake core'})`,
        db: name,
        value: median(times),
        unit: 'ms',
        target: '<= 20 ms',
      });
      log(`${name}: live add: ${times.map((t) => t.toFixed(1)).join(' ')}`);
    } finally {
      svc.dispose();
      await supervisor?.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await conn.close();
  }
  return rows;
}

const bench: Benchmark = async (ctx) => {
  const coreBin = process.env.PANEL_TEST_CORE_BIN || resolveBinary('v2ray') || resolveBinary('xray');
  if (!coreBin) ctx.log('no core binary (PANEL_TEST_CORE_BIN, v2ray or xray): the live-change figure uses a fake core');
  const rows: BenchRow[] = [];
  rows.push(...(await eachDatabase(ctx, 'panel_bench_core', (db, url) => run(db, url, coreBin, ctx.log))));
  return rows;
};

export default bench;
