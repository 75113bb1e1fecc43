// bench/RESULTS.md from bench/results.json (written by `npm run bench`; alone: `npm run bench:results`).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { BenchRow } from './types.js';

/** Each row carries the time of the run that measured it: a filtered run replaces only its benchmarks' rows. */
export interface BenchResults {
  at: string;
  rows: (BenchRow & { bench: string; at?: string })[];
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));
const cell = (s: string) => s.replace(/\|/g, '\\|');

export function resultsMarkdown(r: BenchResults): string {
  const out = [
    '# Benchmark results',
    '',
    'Generated from `bench/results.json` by `npm run bench` (each benchmark with the time of its latest run). Do not',
    'edit by hand; earlier hand-recorded figures are in `bench/HISTORY.md`. Benchmarks print figures and never fail a',
    'build on timing. They ran on a 2-core VM whose speed varies over a day (about 1.5–2x), often with other work',
    'running: compare runs of one day, not single figures across days.',
    '',
  ];
  for (const bench of [...new Set(r.rows.map((x) => x.bench))]) {
    const at = r.rows.find((x) => x.bench === bench)?.at ?? r.at;
    out.push(`## ${bench}`, '', `Run of ${at}.`, '', '| operation | db | value | target |', '|---|---|---|---|');
    for (const x of r.rows.filter((y) => y.bench === bench)) {
      out.push(`| ${cell(x.name)} | ${x.db || '—'} | ${fmt(x.value)} ${x.unit} | ${cell(x.target ?? '')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

export function writeResultsMarkdown(dir: string): boolean {
  const src = join(dir, 'results.json');
  if (!existsSync(src)) return false;
  writeFileSync(join(dir, 'RESULTS.md'), resultsMarkdown(JSON.parse(readFileSync(src, 'utf8')) as BenchResults));
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = fileURLToPath(new URL('.', import.meta.url));
  console.log(writeResultsMarkdown(dir) ? 'wrote bench/RESULTS.md' : 'no bench/results.json: run npm run bench');
}
