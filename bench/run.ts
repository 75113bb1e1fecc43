// `npm run bench [-- name-filter]`: runs every bench/*.bench.ts, prints one table, writes bench/results.json and
// bench/RESULTS.md (generated from it by results-md.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Benchmark, BenchRow } from './types.js';
import { writeResultsMarkdown, type BenchResults } from './results-md.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && f.includes(filter))
  .sort();
const pgUrl = process.env.PANEL_BENCH_PG_URL || process.env.PANEL_TEST_PG_URL || undefined;
if (!pgUrl) console.log('PANEL_BENCH_PG_URL/PANEL_TEST_PG_URL unset: PostgreSQL figures are skipped');

const rows: (BenchRow & { bench: string })[] = [];
for (const file of files) {
  const bench = file.replace(/\.bench\.ts$/, '');
  console.log(`\n== ${bench}`);
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: Benchmark };
  try {
    for (const row of await mod.default({ pgUrl, log: (l) => console.log(`   ${l}`) })) rows.push({ bench, ...row });
  } catch (err) {
    console.error(`benchmark ${bench} failed: ${err instanceof Error ? err.stack : String(err)}`);
  }
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));
const table = [
  ['benchmark', 'operation', 'db', 'value', 'target'],
  ...rows.map((r) => [r.bench, r.name, r.db, `${fmt(r.value)} ${r.unit}`, r.target ?? '']),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
console.log('');
for (const [i, row] of table.entries()) {
  console.log(`| ${row.map((cell, j) => cell.padEnd(widths[j]!)).join(' | ')} |`);
  if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
}
// Rows of the benchmarks this run did not run (a filter, or a failure) are kept with their own run's time.
const at = new Date().toISOString();
const ran = new Set(rows.map((r) => r.bench));
let kept: BenchResults['rows'] = [];
try {
  const old = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchResults;
  kept = old.rows.filter((r) => !ran.has(r.bench)).map((r) => ({ ...r, at: r.at ?? old.at }));
} catch {
  // no earlier results
}
const merged = [...kept, ...rows.map((r) => ({ ...r, at }))].sort((a, b) => a.bench.localeCompare(b.bench));
writeFileSync(join(dir, 'results.json'), JSON.stringify({ at, rows: merged }, null, 2));
writeResultsMarkdown(dir);
console.log('\nwrote bench/results.json and bench/RESULTS.md');
process.exit(0);
