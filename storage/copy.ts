// Copies every panel table from one connection to another, whatever the two dialects: the portable backup
// (PostgreSQL → a SQLite file), restoring it on PostgreSQL, and `panel db copy`. The table list, column names,
// types, keys and foreign-key order come from the SQLite schema (the PostgreSQL one is kept equal to it by the
// schema parity test), so a new table or column is copied without touching this file.
import { getTableName, is, sql, type SQL } from 'drizzle-orm';
import { SQLiteTable, getTableConfig } from 'drizzle-orm/sqlite-core';
import * as sqliteSchema from './schema/sqlite.js';
import { connect, type Conn } from './conn.js';
import { runMigrations } from './migrate.js';
import { DomainError } from '../domain/shared/errors.js';

export interface TableSpec {
  name: string;
  columns: string[];
  /** Primary-key columns (keyset paging order). */
  pk: string[];
  /** Columns read back as booleans (SQLite keeps 0/1, PostgreSQL a boolean). */
  bools: Set<string>;
  /** Columns read back as numbers (PostgreSQL's bigint arrives as text through a raw query). */
  numbers: Set<string>;
  /** The auto-increment id column, whose PostgreSQL sequence is moved past the copied ids. */
  serial: string | null;
}

const PAGE_ROWS = 2000;

let specs: TableSpec[] | null = null;

/** Every panel table, parents before the tables that reference them. */
export function tableSpecs(): TableSpec[] {
  if (specs) return specs;
  const tables = (Object.values(sqliteSchema) as unknown[]).filter((v): v is SQLiteTable => is(v, SQLiteTable));
  const byName = new Map<string, { spec: TableSpec; deps: string[] }>();
  for (const table of tables) {
    const cfg = getTableConfig(table);
    const pk =
      cfg.primaryKeys[0]?.columns.map((c) => c.name) ?? cfg.columns.filter((c) => c.primary).map((c) => c.name);
    const serialCol = cfg.columns.find((c) => c.primary && c.columnType === 'SQLiteInteger' && c.name === 'id');
    byName.set(cfg.name, {
      spec: {
        name: cfg.name,
        columns: cfg.columns.map((c) => c.name),
        pk,
        bools: new Set(cfg.columns.filter((c) => c.dataType === 'boolean').map((c) => c.name)),
        numbers: new Set(cfg.columns.filter((c) => c.dataType === 'number').map((c) => c.name)),
        serial: serialCol ? serialCol.name : null,
      },
      deps: cfg.foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)).filter((n) => n !== cfg.name),
    });
  }
  const out: TableSpec[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const entry = byName.get(name)!;
    for (const d of entry.deps) visit(d);
    out.push(entry.spec);
  };
  for (const name of [...byName.keys()].sort()) visit(name);
  specs = out;
  return out;
}

const ident = (name: string) => sql.raw(`"${name.replace(/"/g, '""')}"`);
const list = (names: string[]) => sql.join(names.map(ident), sql`, `);

/** A row as plain JSON values with the schema's types (booleans as booleans, numbers as numbers). */
function normalise(spec: TableSpec, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const col of spec.columns) {
    let v = row[col];
    if (v === undefined) v = null;
    if (v !== null) {
      if (spec.bools.has(col)) v = v === true || v === 1 || v === '1' || v === 't' || v === 'true' || v === 1n;
      else if (spec.numbers.has(col)) v = Number(v);
      else if (typeof v === 'bigint') v = Number(v);
    }
    out[col] = v;
  }
  return out;
}

/** Reads one table in primary-key order, `PAGE_ROWS` at a time. */
export async function* readTable(c: Conn, spec: TableSpec): AsyncGenerator<Record<string, unknown>[]> {
  let last: unknown[] | null = null;
  for (;;) {
    const where: SQL = last
      ? sql`WHERE (${list(spec.pk)}) > (${sql.join(
          last.map((v) => sql`${v}`),
          sql`, `,
        )})`
      : sql``;
    const rows = await c.all<Record<string, unknown>>(
      sql`SELECT ${list(spec.columns)} FROM ${ident(spec.name)} ${where} ORDER BY ${list(spec.pk)} LIMIT ${PAGE_ROWS}`,
    );
    if (rows.length === 0) return;
    const page = rows.map((r) => normalise(spec, r));
    yield page;
    if (rows.length < PAGE_ROWS) return;
    const tail = page[page.length - 1]!;
    last = spec.pk.map((k) => tail[k]);
  }
}

/** A value as a SQLite literal (text quoted by doubling quotes; NUL-carrying text as a hex blob cast to text). */
function sqliteLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot copy the number ${v}`);
    return String(v);
  }
  const text = String(v);
  if (text.includes('\0')) return `CAST(X'${Buffer.from(text, 'utf8').toString('hex')}' AS TEXT)`;
  return `'${text.replace(/'/g, "''")}'`;
}

/** Inserts rows given as JSON objects keyed by column name (one statement per page). */
export async function insertRows(c: Conn, spec: TableSpec, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  if (c.dialect === 'pg') {
    const json = JSON.stringify(rows);
    await c.exec(sql`INSERT INTO ${ident(spec.name)} (${list(spec.columns)})
      SELECT ${list(spec.columns)} FROM json_populate_recordset(NULL::${ident(spec.name)}, ${json}::json)`);
  } else {
    // Rows as SQL literals, about 1 MB of text per statement: json_each + json_extract re-parses each row's object
    // once per column (~80 µs a row for clients), and Drizzle builds bound parameters slower still (~200 µs a row).
    let parts: string[] = [];
    let size = 0;
    const flush = async () => {
      if (!parts.length) return;
      await c.exec(sql`INSERT INTO ${ident(spec.name)} (${list(spec.columns)}) VALUES ${sql.raw(parts.join(','))}`);
      parts = [];
      size = 0;
    };
    for (const r of rows) {
      const tuple = `(${spec.columns.map((col) => sqliteLiteral(r[col])).join(',')})`;
      parts.push(tuple);
      size += tuple.length;
      if (size > 1_000_000) await flush();
    }
    await flush();
  }
}

/** The driver's own message (Drizzle wraps it in "Failed query: <the statement and its parameters>"). */
function rootMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown };
  while (e && e.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return String(e?.message ?? err).slice(0, 300);
}

/** Moves each PostgreSQL id sequence past the largest copied id (explicit ids do not advance it). */
async function resetSequences(c: Conn): Promise<void> {
  if (c.dialect !== 'pg') return;
  for (const spec of tableSpecs()) {
    if (!spec.serial) continue;
    await c.exec(sql`SELECT setval(pg_get_serial_sequence(${spec.name}, ${spec.serial}),
      COALESCE((SELECT MAX(${ident(spec.serial)}) FROM ${ident(spec.name)}), 0) + 1, false)`);
  }
}

export async function rowCounts(c: Conn): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const spec of tableSpecs()) {
    const [r] = await c.all<{ n: unknown }>(sql`SELECT COUNT(*) AS n FROM ${ident(spec.name)}`);
    out[spec.name] = Number(r?.n ?? 0);
  }
  return out;
}

export interface CopyProgress {
  table: string;
  /** Rows copied so far, over all tables. */
  done: number;
  total: number;
}

/**
 * Copies every table of `from` into `to`: `from` is read inside one transaction (on PostgreSQL a read-only
 * REPEATABLE READ one, so every table comes from the same moment); `to` is emptied and filled inside one
 * transaction, so a failure leaves it as it was. Both must be at the same schema version.
 */
export async function copyAll(
  from: Conn,
  to: Conn,
  onProgress?: (p: CopyProgress) => void,
): Promise<{ tables: number; rows: number }> {
  const tables = tableSpecs();
  return from.tx(async (src) => {
    if (src.dialect === 'pg') await src.exec(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    const counts = await rowCounts(src);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    return to.tx(async (dst) => {
      if (dst.dialect === 'pg') {
        await dst.exec(
          sql`TRUNCATE ${sql.join(
            tables.map((t) => ident(t.name)),
            sql`, `,
          )}`,
        );
      } else {
        for (const t of [...tables].reverse()) await dst.exec(sql`DELETE FROM ${ident(t.name)}`);
      }
      let done = 0;
      for (const t of tables) {
        for await (const page of readTable(src, t)) {
          try {
            await insertRows(dst, t, page);
          } catch (err) {
            throw new Error(`table ${t.name}: ${rootMessage(err)}`, { cause: err });
          }
          done += page.length;
          onProgress?.({ table: t.name, done, total });
        }
      }
      await resetSequences(dst);
      return { tables: tables.length, rows: done };
    });
  });
}

/**
 * `panel db copy`: migrates `toUrl`, refuses it when it already holds panel data (unless `force`), then copies
 * every table of `fromUrl` into it in one transaction.
 */
export async function copyDatabase(
  fromUrl: string,
  toUrl: string,
  opts: { force?: boolean; onProgress?: (p: CopyProgress) => void } = {},
) {
  await runMigrations(fromUrl);
  await runMigrations(toUrl);
  const [from, to] = [await connect(fromUrl), await connect(toUrl)];
  try {
    const existing = Object.values(await rowCounts(to)).reduce((a, b) => a + b, 0);
    if (existing > 0 && !opts.force) {
      throw new DomainError(
        `the target ${to.description} already holds panel data (${existing} rows); add --force to replace it`,
      );
    }
    return { ...(await copyAll(from, to, opts.onProgress)), replaced: existing };
  } finally {
    await from.close();
    await to.close();
  }
}
