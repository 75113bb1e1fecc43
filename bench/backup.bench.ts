// Backup at 100,000 clients: getDb's snapshot on each backend (target <= 5 s) and `panel db copy` file ->
// PostgreSQL (target <= 60 s), each in a child process whose peak RSS is reported (target <= 400 MB). The data is
// the storage suites' seed (test/support/panel-seed.ts: a row in every table, 100,000 clients with traffic).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../storage/conn.js';
import { runMigrations } from '../storage/migrate.js';
import { seedPanel } from '../test/support/panel-seed.js';
import { withLibsqlFile, withPgDatabase } from './databases.js';
import type { Benchmark, BenchRow } from './types.js';

const CLIENTS = Number(process.env.PANEL_BENCH_BACKUP_CLIENTS ?? 100_000);
const CHILD = fileURLToPath(new URL('./backup-child.ts', import.meta.url));

function child(args: string[]): { ms: number; bytes: number; maxRssMb: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    timeout: 600_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

async function seeded(url: string): Promise<void> {
  await runMigrations(url);
  const c = await connect(url);
  try {
    await seedPanel(c, CLIENTS);
  } finally {
    await c.close();
  }
}

const bench: Benchmark = async (ctx) => {
  const rows: BenchRow[] = [];
  const at = `@${CLIENTS / 1000}k`;
  await withLibsqlFile('panel_bench_backup', async (fileUrl) => {
    ctx.log(`seeding ${CLIENTS} clients into a libsql file`);
    await seeded(fileUrl);
    const snap = child(['snapshot', fileUrl]);
    ctx.log(
      `libsql snapshot: ${snap.ms.toFixed(0)} ms, ${(snap.bytes / 1048576).toFixed(1)} MiB, peak RSS ${snap.maxRssMb.toFixed(0)} MB`,
    );
    rows.push({ name: `getDb snapshot ${at}`, db: 'libsql', value: snap.ms, unit: 'ms', target: '<= 5000 ms' });
    rows.push({
      name: `getDb snapshot ${at} peak RSS`,
      db: 'libsql',
      value: snap.maxRssMb,
      unit: 'MB',
      target: '<= 400 MB',
    });
    rows.push({ name: `snapshot size ${at}`, db: 'libsql', value: snap.bytes / 1048576, unit: 'MiB' });
    if (!ctx.pgUrl) return;
    await withPgDatabase(ctx.pgUrl, 'panel_bench_backup', async (pgUrl) => {
      ctx.log('panel db copy file -> PostgreSQL');
      const copy = child(['copy', fileUrl, pgUrl]);
      ctx.log(`copy: ${copy.ms.toFixed(0)} ms, peak RSS ${copy.maxRssMb.toFixed(0)} MB`);
      rows.push({
        name: `panel db copy file -> pg ${at}`,
        db: 'pg',
        value: copy.ms,
        unit: 'ms',
        target: '<= 60000 ms',
      });
      rows.push({
        name: `panel db copy ${at} peak RSS`,
        db: 'pg',
        value: copy.maxRssMb,
        unit: 'MB',
        target: '<= 400 MB',
      });
      const pgSnap = child(['snapshot', pgUrl]);
      ctx.log(`pg snapshot: ${pgSnap.ms.toFixed(0)} ms, peak RSS ${pgSnap.maxRssMb.toFixed(0)} MB`);
      rows.push({ name: `getDb snapshot ${at}`, db: 'pg', value: pgSnap.ms, unit: 'ms', target: '<= 5000 ms' });
      rows.push({
        name: `getDb snapshot ${at} peak RSS`,
        db: 'pg',
        value: pgSnap.maxRssMb,
        unit: 'MB',
        target: '<= 400 MB',
      });
    });
  });
  return rows;
};
export default bench;
