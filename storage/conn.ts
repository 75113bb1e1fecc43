// One connection abstraction over the two dialects. Query code is written once against the SQLite schema's
// Drizzle types; on PostgreSQL the same calls run against the PostgreSQL tables (identical names and JS types,
// kept equal by the schema parity test, and proven by the storage suite running on both).
import { createClient, type Client as LibsqlClient } from '@libsql/client';
import { drizzle as drizzleLibsql, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { drizzle as drizzlePg } from 'drizzle-orm/postgres-js';
import { sql, type SQL } from 'drizzle-orm';
import postgres from 'postgres';
import * as sqliteSchema from './schema/sqlite.js';
import * as pgSchema from './schema/pg.js';
import { asideReader, type ReadAside } from './read-aside.js';

export type Tables = typeof sqliteSchema;
export type Db = LibSQLDatabase<Tables>;
export type Dialect = 'sqlite' | 'pg';

/** A promise-chain mutex: SQLite through libsql needs a single writer (see stack-notes). */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await prev;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

export interface Conn {
  readonly dialect: Dialect;
  /** The database, or the open transaction when `inTx`. */
  readonly db: Db;
  readonly t: Tables;
  readonly inTx: boolean;
  /**
   * SQLite file databases: runs one read statement on a second connection on a worker thread, at the same time as
   * the main thread runs another (read-aside.ts). Null on PostgreSQL (use the pool) and where there is none.
   */
  readonly readAside: ReadAside | null;
  /** Runs `fn` in one transaction (serialised with every other write on SQLite). Nested calls join the outer one. */
  tx<T>(fn: (c: Conn) => Promise<T>): Promise<T>;
  /** One write statement (serialised on SQLite unless already inside a transaction). */
  write<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** Raw statement without result rows. */
  exec(query: SQL): Promise<void>;
  /** Raw query returning rows. */
  all<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** Rows affected by an update/delete result, whatever the driver. */
  affected(result: unknown): number;
}

export interface Connection extends Conn {
  close(): Promise<void>;
  /** A human-readable description without credentials. */
  readonly description: string;
}

function makeConn(
  dialect: Dialect,
  db: Db,
  t: Tables,
  inTx: boolean,
  mutex: Mutex,
  readAside: ReadAside | null = null,
): Conn {
  const conn: Conn = {
    dialect,
    db,
    t,
    inTx,
    readAside: inTx ? null : readAside, // a transaction's reads belong to its snapshot
    async tx(fn) {
      if (inTx) return fn(conn);
      const run = () => db.transaction(async (tx) => fn(makeConn(dialect, tx as unknown as Db, t, true, mutex)));
      return dialect === 'sqlite' ? mutex.run(run) : run();
    },
    async write(fn) {
      if (inTx || dialect === 'pg') return fn(db);
      return mutex.run(() => fn(db));
    },
    async exec(query) {
      if (dialect === 'sqlite') await conn.write((d) => d.run(query));
      else await (db as any).execute(query);
    },
    async all<T>(query: SQL): Promise<T[]> {
      if (dialect === 'sqlite') return (await db.all(query)) as T[];
      return Array.from((await (db as any).execute(query)) as Iterable<T>);
    },
    affected(result: unknown) {
      const r = result as { rowsAffected?: number; count?: number };
      return Number(r.rowsAffected ?? r.count ?? 0);
    },
  };
  return conn;
}

export function dialectOf(url: string): Dialect {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'pg';
  if (/^(file:|libsql:|:memory:)/i.test(url)) return 'sqlite';
  throw new Error(`unsupported database URL (use file:, libsql:// or postgres://): ${redact(url)}`);
}

export const redact = (url: string): string => url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');

/**
 * A connection over an already constructed libsql Drizzle database (the Workers entry builds one on
 * `@libsql/client/web`). Writes are serialised as on the file database.
 */
export function libsqlConnection(db: Db, description: string, close: () => Promise<void>): Connection {
  const base = makeConn('sqlite', db, sqliteSchema, false, new Mutex());
  return { ...base, description, close };
}

/**
 * A connection over an already constructed postgres.js client (the Workers entry opens one per request: workerd
 * refuses I/O on a socket another request opened). Query builders only: `db.query` is not set up.
 */
export function pgConnection(client: postgres.Sql, description: string): Connection {
  // Without the relational schema: building its config on every request costs more than the reads (no db.query here).
  const db = drizzlePg(client) as unknown as Db;
  const base = makeConn('pg', db, pgSchema as unknown as Tables, false, new Mutex());
  return { ...base, description: redact(description), close: () => client.end({ timeout: 5 }) };
}

/** Opens a connection; does not migrate (see `openStore`). */
export async function connect(url: string): Promise<Connection> {
  const dialect = dialectOf(url);
  const mutex = new Mutex();
  if (dialect === 'pg') {
    // work_mem: the full client list and the enforcement sweep hash-join clients with client_traffics; at 100,000
    // clients the hash takes ~9 MB and PostgreSQL's default 4 MB splits it into batches on disk (about 25% slower).
    const client = postgres(url, { max: 10, onnotice: () => {}, idle_timeout: 30, connection: { work_mem: '32MB' } });
    const db = drizzlePg(client, { schema: pgSchema }) as unknown as Db;
    const base = makeConn('pg', db, pgSchema as unknown as Tables, false, mutex);
    return { ...base, description: redact(url), close: () => client.end({ timeout: 5 }) };
  }
  const client: LibsqlClient = createClient({ url, timeout: 5000, concurrency: 4 } as Parameters<
    typeof createClient
  >[0]);
  if (url !== ':memory:' && !url.includes(':memory:')) {
    await client.execute('PRAGMA journal_mode=WAL');
    await client.execute('PRAGMA synchronous=NORMAL');
  }
  const db = drizzleLibsql(client, { schema: sqliteSchema });
  const aside = asideReader(url);
  const base = makeConn('sqlite', db, sqliteSchema, false, mutex, aside?.read ?? null);
  return {
    ...base,
    description: url,
    close: async () => {
      await aside?.close();
      client.close();
    },
  };
}

export { sql };
