// Backup and restore of the file database (libsql): consistent copies with `VACUUM INTO`, and a restore that
// validates an uploaded file, migrates a copy of it to the current schema and replaces the content of every
// table in one transaction — the running panel keeps its connections (no file swap under open handles).
// PostgreSQL: refused with a message (use pg_dump / pg_restore).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { sql } from 'drizzle-orm';
import type { BackupRepo, RestoreResult } from '../../domain/ports/backup-store.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Conn } from '../conn.js';
import { runMigrations } from '../migrate.js';

const SQLITE_HEADER = 'SQLite format 3\0';
/** Tables an upload must have to count as a database of this panel. */
export const REQUIRED_TABLES = ['__drizzle_migrations', 'users', 'settings', 'inbounds', 'clients', 'client_inbounds', 'client_traffics'];

const PG_MESSAGE =
  'the database is PostgreSQL: back it up and restore it with pg_dump / pg_restore (the panel only copies and replaces the file database)';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

function tempDir(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'panel-backup-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

export function isSqliteFile(data: Uint8Array): boolean {
  if (data.length < 100) return false;
  return new TextDecoder('latin1').decode(data.subarray(0, 16)) === SQLITE_HEADER;
}

async function tableNames(client: Client, schema = 'main'): Promise<string[]> {
  const r = await client.execute(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`);
  return r.rows.map((row) => String(row.name));
}

async function columns(client: Client, schema: string, table: string): Promise<string[]> {
  const r = await client.execute(`PRAGMA ${schema}.table_info(${quoteIdent(table)})`);
  return r.rows.map((row) => String(row.name));
}

/** Validates an uploaded file and migrates it in place (a temp copy) to the current schema. */
async function prepareUpload(path: string): Promise<void> {
  const client = createClient({ url: `file:${path}`, concurrency: 1 } as Parameters<typeof createClient>[0]);
  try {
    let check: string;
    try {
      check = String((await client.execute('PRAGMA quick_check')).rows[0]?.[0] ?? '');
    } catch (err) {
      throw new DomainError(`db: the file is not a readable SQLite database (${(err as Error).message})`);
    }
    if (check !== 'ok') throw new DomainError(`db: the database file is damaged (${check.slice(0, 200)})`);
    const names = new Set(await tableNames(client));
    const missing = REQUIRED_TABLES.filter((t) => !names.has(t));
    if (missing.length) throw new DomainError(`db: not a database of this panel (missing tables: ${missing.join(', ')})`);
  } finally {
    client.close();
  }
  try {
    await runMigrations(`file:${path}`);
  } catch (err) {
    throw new DomainError(`db: the database cannot be brought to the current schema: ${(err as Error).message}`);
  }
}

export function backupRepo(c: Conn): BackupRepo {
  if (c.dialect === 'pg') {
    const refuse = async (): Promise<never> => { throw new DomainError(PG_MESSAGE); };
    return { fileBased: false, snapshot: refuse, snapshotTo: refuse, restore: refuse };
  }

  const mainFile = async (): Promise<string> => {
    const rows = await c.all<{ file: string }>(sql`SELECT file FROM pragma_database_list WHERE name = 'main'`);
    return rows[0]?.file ?? '';
  };

  const snapshotTo = async (path: string): Promise<void> => {
    // VACUUM INTO writes a consistent, compacted copy; serialised with the panel's other writes.
    await c.exec(sql`VACUUM INTO ${path}`);
  };

  return {
    fileBased: true,
    snapshotTo,
    async snapshot(): Promise<Uint8Array> {
      const t = tempDir();
      try {
        const path = join(t.dir, 'snapshot.db');
        await snapshotTo(path);
        return new Uint8Array(readFileSync(path));
      } finally {
        t.done();
      }
    },
    async restore(data: Uint8Array, opts: { beforeReplace?: () => Promise<void> } = {}): Promise<RestoreResult> {
      if (!isSqliteFile(data)) throw new DomainError('db: not a SQLite database file');
      const file = await mainFile();
      if (!file) throw new DomainError('the panel database is in memory: nothing to restore into');
      const t = tempDir();
      try {
        const upload = join(t.dir, 'upload.db');
        writeFileSync(upload, data, { mode: 0o600 });
        await prepareUpload(upload);
        await opts.beforeReplace?.();
        // One dedicated connection (ATTACH is per connection), while the panel's own writes wait.
        return await c.write(async () => {
          const client = createClient({ url: `file:${file}`, concurrency: 1, timeout: 5000 } as Parameters<typeof createClient>[0]);
          try {
            await client.execute('PRAGMA foreign_keys=ON');
            await client.execute({ sql: 'ATTACH DATABASE ? AS up', args: [upload] });
            try {
              const mine = (await tableNames(client, 'main')).filter((n) => !n.startsWith('sqlite_') && n !== '__drizzle_migrations');
              const theirs = new Set(await tableNames(client, 'up'));
              // Every DELETE first (cascades then only touch rows that go anyway), then the copies; references are
              // checked at COMMIT (deferred), so a broken upload rolls the whole batch back.
              const stmts: string[] = ['PRAGMA defer_foreign_keys = ON', ...mine.map((table) => `DELETE FROM main.${quoteIdent(table)}`)];
              const inserts: number[] = [];
              for (const table of mine) {
                if (!theirs.has(table)) continue;
                const upCols = new Set(await columns(client, 'up', table));
                const cols = (await columns(client, 'main', table)).filter((col) => upCols.has(col)).map(quoteIdent).join(', ');
                if (!cols) continue;
                inserts.push(stmts.length);
                stmts.push(`INSERT INTO main.${quoteIdent(table)} (${cols}) SELECT ${cols} FROM up.${quoteIdent(table)}`);
              }
              let results;
              try {
                results = await client.batch(stmts, 'write');
              } catch (err) {
                const msg = (err as Error).message;
                throw new DomainError(/FOREIGN KEY/i.test(msg) ? 'db: the uploaded data has broken references; nothing was changed' : `db: restore failed, nothing was changed: ${msg}`);
              }
              const rows = inserts.reduce((n, i) => n + results[i]!.rowsAffected, 0);
              return { tables: mine.length, rows };
            } finally {
              await client.execute('DETACH DATABASE up').catch(() => undefined);
            }
          } finally {
            client.close();
          }
        });
      } finally {
        t.done();
      }
    },
  };
}
