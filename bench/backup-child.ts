// One backup operation in its own process, so that its peak resident memory is its own (bench/backup.bench.ts).
// argv: `snapshot URL` (what getDb does: the whole snapshot as bytes) or `copy FROM_URL TO_URL`.
import { openStore } from '../storage/store.js';
import { copyDatabase } from '../storage/copy.js';

const [op, a, b] = process.argv.slice(2);
// Sampled: getrusage's maxrss of a forked child can start from the parent's high-water mark.
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);
const started = performance.now();
let bytes = 0;
if (op === 'snapshot') {
  const store = await openStore(a!, { migrate: false });
  bytes = (await store.backup.snapshot()).length;
  await store.close();
} else if (op === 'copy') {
  await copyDatabase(a!, b!, { force: true });
} else {
  throw new Error(`unknown operation ${op}`);
}
const ms = performance.now() - started;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(`${JSON.stringify({ ms, bytes, maxRssMb: peak / 1048576 })}\n`);
process.exit(0);
