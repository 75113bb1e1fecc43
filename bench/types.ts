/** One measured figure. Benchmarks print figures; they never fail a build on timing. */
export interface BenchRow {
  /** What was measured, e.g. "clients/add (2 inbounds) @100k". */
  name: string;
  /** libsql, pg, or "" when the database does not matter. */
  db: string;
  value: number;
  unit: string;
  /** The target the issue names, for the reader (e.g. "<= 5 ms"). */
  target?: string;
}

export interface BenchContext {
  /** PostgreSQL server to create benchmark databases on (PANEL_BENCH_PG_URL or PANEL_TEST_PG_URL), if any. */
  pgUrl?: string;
  /** Progress output (long benchmarks should say what they are doing). */
  log(line: string): void;
}

/** Every bench/<area>.bench.ts default-exports one of these. */
export type Benchmark = (ctx: BenchContext) => Promise<BenchRow[]>;

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
