// The two dialect schemas must describe the same tables: same exports, table names, column names, JS types,
// nullability, defaults, primary keys and index names. The query code is written once against the SQLite types
// and runs on PostgreSQL too, so any drift here is a bug there.
import { describe, expect, it } from 'vitest';
import { getTableColumns, getTableName, is, type InferInsertModel, type InferSelectModel } from 'drizzle-orm';
import { SQLiteTable, getTableConfig as sqliteConfig } from 'drizzle-orm/sqlite-core';
import { PgTable, getTableConfig as pgConfig } from 'drizzle-orm/pg-core';
import * as sq from '../../storage/schema/sqlite.js';
import * as pg from '../../storage/schema/pg.js';

// ---- type level (checked by `npm run typecheck`): identical row and insert types for every table ----
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type SqliteTables = { [K in keyof typeof sq]: (typeof sq)[K] extends SQLiteTable ? K : never }[keyof typeof sq];
type PgTables = { [K in keyof typeof pg]: (typeof pg)[K] extends PgTable ? K : never }[keyof typeof pg];
type SameTableNames = Equal<SqliteTables, PgTables>;
type RowParity = {
  [K in SqliteTables & PgTables]: Equal<InferSelectModel<(typeof sq)[K]>, InferSelectModel<(typeof pg)[K]>>;
};
type InsertParity = {
  [K in SqliteTables & PgTables]: Equal<InferInsertModel<(typeof sq)[K]>, InferInsertModel<(typeof pg)[K]>>;
};
const sameNames: SameTableNames = true;
const rows: { [K in SqliteTables & PgTables]: true } = {} as RowParity;
const inserts: { [K in SqliteTables & PgTables]: true } = {} as InsertParity;
void rows;
void inserts;

// ---- run time ----
const tablesOf = (mod: Record<string, unknown>, kind: typeof SQLiteTable | typeof PgTable) =>
  Object.fromEntries(Object.entries(mod).filter(([, v]) => is(v, kind as never))) as Record<
    string,
    SQLiteTable | PgTable
  >;

const sqTables = tablesOf(sq, SQLiteTable);
const pgTables = tablesOf(pg, PgTable);

function describeColumns(table: SQLiteTable | PgTable) {
  return Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, c]) => [
      key,
      {
        name: c.name,
        dataType: c.dataType,
        notNull: c.notNull,
        hasDefault: c.hasDefault,
        primary: c.primary,
        isUnique: c.isUnique,
      },
    ]),
  );
}

/** Indexes one dialect has on purpose, with the reason (storage/schema/pg.ts says more). */
const SQLITE_ONLY_INDEXES: Record<string, string[]> = {
  // PostgreSQL leaves group_name unindexed so that a group rename is a HOT update; SQLite has no HOT and keeps it
  clients: ['clients_group_idx'],
};
const PG_ONLY_INDEXES: Record<string, string[]> = {
  // a hash probe instead of the collation-aware btree for the email join of inbounds/get; SQLite compares bytes
  clientTraffics: ['client_traffics_email_hash_idx'],
};

const indexNames = (cfg: { indexes: { config: { name?: string; unique?: boolean } }[] }) =>
  cfg.indexes.map((i) => `${i.config.name}${i.config.unique ? ' (unique)' : ''}`).sort();

describe('schema parity (storage/schema/sqlite.ts vs pg.ts)', () => {
  it('exports the same tables under the same names', () => {
    expect(sameNames).toBe(true);
    expect(Object.keys(sqTables).sort()).toEqual(Object.keys(pgTables).sort());
    expect(Object.keys(sqTables).length).toBeGreaterThanOrEqual(14);
    for (const key of Object.keys(sqTables))
      expect(getTableName(pgTables[key]!), key).toBe(getTableName(sqTables[key]!));
  });

  it.each(Object.keys(sqTables).sort())('%s has the same columns, JS types, nullability, defaults and keys', (key) => {
    expect(describeColumns(pgTables[key]!)).toEqual(describeColumns(sqTables[key]!));
  });

  it.each(Object.keys(sqTables).sort())('%s has the same indexes and composite keys', (key) => {
    const a = sqliteConfig(sqTables[key] as SQLiteTable);
    const b = pgConfig(pgTables[key] as PgTable);
    expect(indexNames(b).filter((name) => !PG_ONLY_INDEXES[key]?.includes(name))).toEqual(
      indexNames(a).filter((name) => !SQLITE_ONLY_INDEXES[key]?.includes(name)),
    );
    expect(b.primaryKeys.map((p) => p.columns.map((c) => c.name))).toEqual(
      a.primaryKeys.map((p) => p.columns.map((c) => c.name)),
    );
    expect(b.foreignKeys.length).toBe(a.foreignKeys.length);
  });
});
