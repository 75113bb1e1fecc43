// The databases a benchmark runs on: a libsql file in a fresh temp directory, then (when ctx.pgUrl is set) a fresh
// PostgreSQL database created for the run and dropped afterwards, also when the run throws.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { BenchContext, BenchRow } from './types.js';

export type BenchDb = 'libsql' | 'pg';

/** Creates a fresh database `<prefix>_<pid>` on the server of `pgUrl`, runs `use(url)`, then drops it. */
export async function withPgDatabase<T>(pgUrl: string, prefix: string, use: (url: string) => Promise<T>): Promise<T> {
  const name = `${prefix}_${process.pid}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = postgres(pgUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    try {
      return await use(url.toString());
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Creates a temp directory, runs `use(url)` with a libsql file URL inside it, then removes the directory. */
export async function withLibsqlFile<T>(prefix: string, use: (url: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix.replace(/_/g, '-')}-`));
  try {
    return await use(`file:${join(dir, 'panel.db')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `run` on libsql (temp file), then on a fresh PostgreSQL database when `ctx.pgUrl` is set; returns all rows.
 * `prefix` names the temp directory and the database (e.g. `bench_clients` → `bench_clients_<pid>`).
 */
export async function eachDatabase(
  ctx: Pick<BenchContext, 'pgUrl'>,
  prefix: string,
  run: (db: BenchDb, url: string) => Promise<BenchRow[]>,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  rows.push(...(await withLibsqlFile(prefix, (url) => run('libsql', url))));
  if (ctx.pgUrl) rows.push(...(await withPgDatabase(ctx.pgUrl, prefix, (url) => run('pg', url))));
  return rows;
}
