// Backup and restore on both backends, one portable format: a SQLite file with this panel's SQLite schema.
// Snapshot: the file database copies itself with VACUUM INTO; PostgreSQL copies every table, read in one
// repeatable-read transaction, into a fresh migrated file (storage/copy.ts). Restore: the upload is checked
// (header, integrity, required tables, not from a newer schema) and migrated as a temporary copy — or, when it
// is a 3x-ui database, converted into a fresh file — and then every table is replaced in one transaction
// (copyAll), so the running panel keeps its connections and a failure changes nothing.
import {
  closeSync,
  constants,
  chmodSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type Client } from '@libsql/client';
import { drizzle as drizzleLibsql } from 'drizzle-orm/libsql';
import { sql } from 'drizzle-orm';
import type {
  BackupRepo,
  ConvertedPanel,
  ForeignDatabase,
  RestoreOptions,
  RestoreResult,
} from '../../domain/ports/backup-repo.js';
import { DomainError } from '../../domain/shared/errors.js';
import { libsqlConnection, type Conn, type Connection } from '../conn.js';
import { runMigrations } from '../migrate.js';
import { copyAll } from '../copy.js';
import * as sqliteSchema from '../schema/sqlite.js';

const SQLITE_HEADER = 'SQLite format 3\0';
/** Tables an upload must have to count as a database of this panel. */
export const REQUIRED_TABLES = [
  '__drizzle_migrations',
  'users',
  'settings',
  'inbounds',
  'clients',
  'client_inbounds',
  'client_traffics',
];
/** Tables a 3x-ui database (x-ui.db) has from v2.x on; the v3.x line adds clients, client_inbounds and more. */
const XUI_TABLES = ['users', 'inbounds', 'settings', 'client_traffics'];
/** Every 3x-ui table the converter reads (those absent from an older file are skipped). */
const XUI_READ = [
  'users',
  'inbounds',
  'settings',
  'client_traffics',
  'outbound_traffics',
  'inbound_client_ips',
  'clients',
  'client_inbounds',
  'client_groups',
  'inbound_fallbacks',
  'api_tokens',
  'nodes',
  'custom_geo_resources',
  'node_client_traffics',
];

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

function tempDir(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'panel-backup-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Creates an empty file readable by the owner only (SQLite keeps the mode of an existing file, and gives it to its
 * journal).
 */
function createPrivateFile(path: string): void {
  closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
  chmodSync(path, 0o600); // whatever the umask
}

export function isSqliteFile(data: Uint8Array): boolean {
  if (data.length < 100) return false;
  return new TextDecoder('latin1').decode(data.subarray(0, 16)) === SQLITE_HEADER;
}

function isSqliteFileAt(path: string): boolean {
  const buf = new Uint8Array(100);
  let n = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      n = readSync(fd, buf, 0, 100, 0);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new DomainError(`db: cannot read ${path}: ${(err as Error).message}`);
  }
  return n === 100 && isSqliteFile(buf);
}

const fileClient = (path: string): Client =>
  createClient({ url: `file:${path}`, concurrency: 1, timeout: 5000 } as Parameters<typeof createClient>[0]);

/** A Conn over a SQLite file outside the panel (a snapshot being written, an upload being read). */
function fileConn(path: string): Connection {
  const client = fileClient(path);
  return libsqlConnection(drizzleLibsql(client, { schema: sqliteSchema }), path, async () => client.close());
}

/**
 * Fills a fresh SQLite file fast: no journal and no fsync (a failure discards the whole file anyway), a larger
 * page cache, and the secondary indexes dropped during the load and built once at the end (a sort instead of
 * 100,000 B-tree inserts per index).
 */
async function bulkLoad(path: string, load: (c: Conn) => Promise<unknown>): Promise<void> {
  const client = fileClient(path);
  try {
    for (const p of ['journal_mode=OFF', 'synchronous=OFF', 'cache_size=-65536']) await client.execute(`PRAGMA ${p}`);
    const indexes = (
      await client.execute(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
    ).rows.map((r) => ({ name: String(r.name), sql: String(r.sql) }));
    for (const i of indexes) await client.execute(`DROP INDEX ${quoteIdent(i.name)}`);
    await load(libsqlConnection(drizzleLibsql(client, { schema: sqliteSchema }), path, async () => {}));
    for (const i of indexes) await client.execute(i.sql);
  } finally {
    client.close();
  }
}

async function tableNames(client: Client): Promise<string[]> {
  const r = await client.execute(`SELECT name FROM sqlite_master WHERE type = 'table'`);
  return r.rows.map((row) => String(row.name));
}

async function columnNames(client: Client, table: string): Promise<string[]> {
  const r = await client.execute(`PRAGMA table_info(${quoteIdent(table)})`);
  return r.rows.map((row) => String(row.name));
}

/** The newest SQLite migration this build knows (its journal's `when`). */
function latestKnownMigration(): number {
  const path = fileURLToPath(new URL('../migrations/sqlite/meta/_journal.json', import.meta.url));
  const journal = JSON.parse(readFileSync(path, 'utf8')) as { entries: { when: number }[] };
  return Math.max(...journal.entries.map((e) => e.when));
}

type Kind = { kind: 'panel' } | { kind: 'x-ui'; tables: string[] };

/** Header, integrity and which kind of database the file is. Throws a DomainError naming the problem. */
async function inspect(path: string): Promise<Kind> {
  if (!isSqliteFileAt(path)) throw new DomainError('db: not a SQLite database file');
  const client = fileClient(path);
  try {
    let check: string;
    try {
      check = String((await client.execute('PRAGMA quick_check')).rows[0]?.[0] ?? '');
    } catch (err) {
      throw new DomainError(`db: the file is not a readable SQLite database (${(err as Error).message})`);
    }
    if (check !== 'ok') throw new DomainError(`db: the database file is damaged (${check.slice(0, 200)})`);
    const names = new Set(await tableNames(client));
    if (
      !names.has('__drizzle_migrations') &&
      XUI_TABLES.every((t) => names.has(t)) &&
      (await columnNames(client, 'client_traffics')).includes('inbound_id')
    ) {
      return { kind: 'x-ui', tables: XUI_READ.filter((t) => names.has(t)) };
    }
    const missing = REQUIRED_TABLES.filter((t) => !names.has(t));
    if (missing.length)
      throw new DomainError(`db: not a database of this panel or of 3x-ui (missing tables: ${missing.join(', ')})`);
    const [row] = (await client.execute('SELECT MAX(created_at) AS at FROM __drizzle_migrations')).rows;
    const at = Number(row?.at ?? 0);
    if (at > latestKnownMigration()) {
      throw new DomainError(
        'db: the file comes from a newer version of this panel (its schema has migrations this version does not know); update the panel first, nothing was changed',
      );
    }
    return { kind: 'panel' };
  } finally {
    client.close();
  }
}

async function readForeign(path: string, tables: string[]): Promise<ForeignDatabase> {
  const client = fileClient(path);
  try {
    const out: ForeignDatabase = { format: 'x-ui', tables: {} };
    for (const t of tables) {
      const r = await client.execute(`SELECT * FROM ${quoteIdent(t)}`);
      out.tables[t] = r.rows.map((row) => Object.fromEntries(r.columns.map((col, i) => [col, row[i]])));
    }
    return out;
  } finally {
    client.close();
  }
}

/** Writes converted rows into a fresh, migrated panel file. */
async function writePanelFile(path: string, p: ConvertedPanel): Promise<void> {
  createPrivateFile(path);
  await runMigrations(`file:${path}`);
  const conn = fileConn(path);
  try {
    const t = conn.t;
    const chunks = async <R>(rows: R[], insert: (part: R[]) => Promise<unknown>) => {
      for (let i = 0; i < rows.length; i += 200) await insert(rows.slice(i, i + 200));
    };
    await conn.tx(async (c) => {
      await chunks(p.users, (r) => c.db.insert(t.users).values(r));
      await chunks(p.settings, (r) =>
        c.db.insert(t.settings).values(r.map((s) => ({ key: s.key, value: JSON.stringify(s.value) }))),
      );
      await chunks(p.apiTokens, (r) => c.db.insert(t.apiTokens).values(r));
      await chunks(p.nodes, (r) => c.db.insert(t.nodes).values(r));
      await chunks(p.inbounds, (r) => c.db.insert(t.inbounds).values(r));
      await chunks(p.customGeo, (r) => c.db.insert(t.customGeo).values(r));
      await chunks(p.clients, (r) => c.db.insert(t.clients).values(r));
      await chunks(p.clientInbounds, (r) => c.db.insert(t.clientInbounds).values(r));
      await chunks(p.clientTraffics, (r) => c.db.insert(t.clientTraffics).values(r));
      await chunks(p.clientGroups, (r) => c.db.insert(t.clientGroups).values(r));
      await chunks(p.fallbacks, (r) => c.db.insert(t.fallbacks).values(r));
      await chunks(p.outboundTraffics, (r) => c.db.insert(t.outboundTraffics).values(r));
    });
  } catch (err) {
    throw new DomainError(`db: the converted 3x-ui data does not fit this panel: ${(err as Error).message}`);
  } finally {
    await conn.close();
  }
}

export function backupRepo(c: Conn): BackupRepo {
  const mainFile = async (): Promise<string> => {
    const rows = await c.all<{ file: string }>(sql`SELECT file FROM pragma_database_list WHERE name = 'main'`);
    return rows[0]?.file ?? '';
  };

  /** Writes the snapshot to `tmp` (a fresh path in the target's folder). */
  const writeSnapshot = async (tmp: string): Promise<void> => {
    createPrivateFile(tmp);
    if (c.dialect === 'sqlite') {
      // VACUUM INTO writes a consistent, compacted copy (into an empty file); serialised with the panel's writes.
      await c.exec(sql`VACUUM INTO ${tmp}`);
      return;
    }
    await runMigrations(`file:${tmp}`);
    await bulkLoad(tmp, (out) => copyAll(c, out));
  };

  const snapshotTo = async (path: string): Promise<void> => {
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
    try {
      await writeSnapshot(tmp);
      chmodSync(tmp, 0o600);
      renameSync(tmp, path);
    } catch (err) {
      for (const f of [tmp, `${tmp}-journal`]) {
        try {
          unlinkSync(f);
        } catch {
          /* gone */
        }
      }
      throw err;
    }
  };

  const restoreFile = async (source: string, opts: RestoreOptions = {}): Promise<RestoreResult> => {
    if (c.dialect === 'sqlite' && !(await mainFile()))
      throw new DomainError('the panel database is in memory: nothing to restore into');
    const t = tempDir();
    try {
      let upload = join(t.dir, 'upload.db');
      try {
        copyFileSync(source, upload);
        chmodSync(upload, 0o600);
      } catch (err) {
        throw new DomainError(`db: cannot read ${source}: ${(err as Error).message}`);
      }
      const kind = await inspect(upload);
      let conversion: Omit<RestoreResult, 'tables' | 'rows'> = { format: 'panel', skipped: [], converted: {} };
      if (kind.kind === 'x-ui') {
        if (!opts.convertForeign)
          throw new DomainError(
            'db: this is a 3x-ui database; it can only be imported through importDB or `panel db import`',
          );
        const r = await opts.convertForeign(await readForeign(upload, kind.tables));
        upload = join(t.dir, 'converted.db');
        await writePanelFile(upload, r.panel);
        conversion = {
          format: 'x-ui',
          skipped: r.skipped,
          converted: r.converted,
          newAdminPassword: r.newAdminPassword,
        };
      } else {
        try {
          await runMigrations(`file:${upload}`);
        } catch (err) {
          throw new DomainError(`db: the database cannot be brought to the current schema: ${(err as Error).message}`);
        }
      }
      await opts.beforeReplace?.();
      const from = fileConn(upload);
      try {
        const r = await copyAll(from, c);
        return { ...r, ...conversion };
      } catch (err) {
        if (err instanceof DomainError) throw err;
        const msg = (err as Error).message;
        throw new DomainError(
          /FOREIGN KEY|foreign key/i.test(msg)
            ? 'db: the uploaded data has broken references; nothing was changed'
            : `db: restore failed, nothing was changed: ${msg.slice(0, 300)}`,
        );
      } finally {
        await from.close();
      }
    } finally {
      t.done();
    }
  };

  return {
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
    restoreFile,
    async restore(data: Uint8Array, opts: RestoreOptions = {}): Promise<RestoreResult> {
      if (!isSqliteFile(data)) throw new DomainError('db: not a SQLite database file');
      const t = tempDir();
      try {
        const path = join(t.dir, 'incoming.db');
        writeFileSync(path, data, { mode: 0o600 });
        return await restoreFile(path, opts);
      } finally {
        t.done();
      }
    },
  };
}
