// Raw parameterised statements for the hot bulk paths (multi-row inserts, big projections), where Drizzle's
// query builder costs more CPU than the database (about 5x on a 10,000-row insert). Placeholders are `?`; on
// PostgreSQL they become `$1…$n`. Runs on the connection or open transaction `c` is bound to. On SQLite, call it
// inside `c.tx(...)` or `c.write(...)` for writes (single writer). Covered by the storage and handler suites on
// both dialects (they would catch a Drizzle internals change).
import type { Conn } from '../conn.js';
import { sqliteArgs } from '../sqlite-args.js';

/**
 * Runs `fn` in a short transaction whose PostgreSQL planner settings are `settings` (SET LOCAL through set_config,
 * so they end with it and never leak to the pooled connection). For the few statements whose plan needs steering.
 */
export function withPlannerSettings<T>(
  c: Conn,
  settings: Record<string, string>,
  fn: (tx: Conn) => Promise<T>,
): Promise<T> {
  const names = Object.keys(settings);
  return c.tx(async (tx) => {
    await raw(
      tx,
      `SELECT ${names.map(() => 'set_config(?, ?, true)').join(', ')}`,
      names.flatMap((k) => [k, settings[k]]),
    );
    return fn(tx);
  });
}

export async function raw<T = Record<string, unknown>>(c: Conn, text: string, args: unknown[] = []): Promise<T[]> {
  const session = (c.db as unknown as { session: { client: any; tx?: any } }).session;
  if (c.dialect === 'sqlite') {
    const target = session.tx ?? session.client;
    const res = await target.execute({ sql: text, args: sqliteArgs(args) });
    return res.rows as T[];
  }
  let i = 0;
  const pgText = text.replace(/\?/g, () => `$${++i}`);
  return Array.from(await session.client.unsafe(pgText, args)) as T[];
}

/** `(?,?,…),(?,?,…)` for `rows` rows of `cols` columns. */
export const placeholders = (rows: number, cols: number): string => {
  const one = `(${Array.from({ length: cols }, () => '?').join(',')})`;
  return Array.from({ length: rows }, () => one).join(',');
};

/**
 * Many rows as ONE JSON text value (json_group_array / json_agg), parsed once: the libsql client builds each result
 * row object in JavaScript (about 50 µs a row, 1 s for 20,000 rows), while SQLite builds the JSON natively.
 * Returns one array per row, values in the order of `exprs`. `from` is everything after FROM (joins and WHERE).
 */
export async function jsonRows(
  c: Conn,
  exprs: string[],
  from: string,
  orderBy: string,
  args: unknown[] = [],
): Promise<unknown[][]> {
  let text: string;
  if (c.dialect === 'sqlite') {
    const inner = exprs.map((e, i) => `${e} AS c${i}`).join(', ');
    const outer = exprs.map((_, i) => `c${i}`).join(', ');
    text = `SELECT json_group_array(json_array(${outer})) AS j FROM (SELECT ${inner} FROM ${from}${orderBy ? ` ORDER BY ${orderBy}` : ''})`;
  } else {
    text = `SELECT COALESCE(json_agg(json_build_array(${exprs.join(', ')})${orderBy ? ` ORDER BY ${orderBy}` : ''}), '[]'::json)::text AS j FROM ${from}`;
  }
  const [row] = await raw<{ j: string }>(c, text, args);
  return row?.j ? (JSON.parse(row.j) as unknown[][]) : [];
}
