// The Workers entry outside Cloudflare: bundle adapters/worker/index.ts as `wrangler deploy` would (esbuild, the
// Workers export conditions), write a workerd config for it, and run it in workerd (the npm package `workerd`).
//   node --import tsx scripts/worker.ts build            -> dist-worker/worker.js, size printed
//   node --import tsx scripts/worker.ts dev [--db URL] [--port N]
// The end-to-end suite (test/e2e/edge.test.ts) uses the same functions.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const WORKER_ENTRY = join(ROOT, 'adapters/worker/index.ts');
export const WORKER_OUT_DIR = join(ROOT, 'dist-worker');

// The only node: modules the Worker may import: what workerd provides under nodejs_compat at the configured date.
// node:fs and node:os are not among them (stack-notes.md); a bundle importing anything else would fail to load.
const ALLOWED_NODE = new Set([
  'node:async_hooks',
  'node:buffer',
  'node:crypto',
  'node:events',
  'node:stream',
  'node:util',
  'node:string_decoder',
]);

export interface WorkerBundle {
  file: string;
  bytes: number;
  gzipBytes: number;
  imports: string[];
}

/** Bundles the Worker into `outDir/worker.js`; fails when it imports a node: module workerd lacks. */
export async function buildWorker(outDir = WORKER_OUT_DIR, opts: { minify?: boolean } = {}): Promise<WorkerBundle> {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'worker.js');
  const res = await build({
    entryPoints: [WORKER_ENTRY],
    outfile: file,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    // What wrangler uses: packages with a Workers build (postgres -> cloudflare:sockets, @libsql/client -> web).
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['node:*', 'cloudflare:*'],
    minify: opts.minify ?? true,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const imports = [
    ...new Set(
      Object.values(res.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path)),
    ),
  ].sort();
  const bad = imports.filter((p) => p.startsWith('node:') && !ALLOWED_NODE.has(p));
  if (bad.length)
    throw new Error(
      `the Worker bundle imports ${bad.join(', ')}, which workerd does not provide: keep them out of its module graph`,
    );
  const code = readFileSync(file);
  return { file, bytes: code.length, gzipBytes: gzipSync(code).length, imports };
}

/** compatibility_date and compatibility_flags from wrangler.toml: workerd runs what Cloudflare would. */
export function wranglerCompat(): { date: string; flags: string[] } {
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1];
  if (!date) throw new Error('wrangler.toml has no compatibility_date');
  return { date, flags: flags ? [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!) : [] };
}

export interface WorkerInstance {
  /** Service and socket name (letters and digits). */
  name: string;
  port: number;
  /** Text bindings (PANEL_DB_URL, PANEL_DB_AUTH_TOKEN) and JSON bindings (HYPERDRIVE = { connectionString }). */
  text?: Record<string, string>;
  json?: Record<string, unknown>;
}

const capnpString = (s: string) => JSON.stringify(s); // capnp text literals use the same escapes as JSON

/**
 * A workerd config (written next to the bundle: embed paths are relative to it) serving the bundle once per instance,
 * each on 127.0.0.1:port with its own bindings. The
 * Workers' outbound network may reach private and loopback addresses (the database runs next to it here).
 */
export function workerdConfig(bundleFile: string, instances: WorkerInstance[]): string {
  const { date, flags } = wranglerCompat();
  const services = instances.map((w) => `(name = ${capnpString(w.name)}, worker = .w${w.name})`);
  const sockets = instances.map(
    (w) =>
      `(name = ${capnpString(w.name)}, address = "127.0.0.1:${w.port}", http = (), service = ${capnpString(w.name)})`,
  );
  const workers = instances.map((w) => {
    const bindings = [
      ...Object.entries(w.text ?? {}).map(([k, v]) => `(name = ${capnpString(k)}, text = ${capnpString(v)})`),
      ...Object.entries(w.json ?? {}).map(
        ([k, v]) => `(name = ${capnpString(k)}, json = ${capnpString(JSON.stringify(v))})`,
      ),
    ];
    return `const w${w.name} :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed ${capnpString(basename(bundleFile))})],
  compatibilityDate = ${capnpString(date)},
  compatibilityFlags = [${flags.map(capnpString).join(', ')}],
  bindings = [${bindings.join(', ')}],
  globalOutbound = "net",
);`;
  });
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ${[...services, '(name = "net", network = (allow = ["public", "private", "local"]))'].join(',\n    ')}
  ],
  sockets = [
    ${sockets.join(',\n    ')}
  ],
);
${workers.join('\n')}
`;
}

/** The workerd binary of the npm package. */
export function workerdBin(): string {
  const mod = createRequire(import.meta.url)('workerd') as { default?: string } | string;
  return typeof mod === 'string' ? mod : mod.default!;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Writes the config next to the bundle and starts `workerd serve`; resolves once every socket answers HTTP. */
export async function startWorkerd(
  bundle: WorkerBundle,
  instances: WorkerInstance[],
  opts: { stdio?: 'inherit' | 'pipe' } = {},
): Promise<{ proc: ChildProcess; output(): string; stop(): Promise<void> }> {
  const config = join(dirname(bundle.file), 'workerd.capnp');
  writeFileSync(config, workerdConfig(bundle.file, instances));
  const proc = spawn(workerdBin(), ['serve', config, '--verbose'], {
    stdio: ['ignore', opts.stdio ?? 'pipe', opts.stdio ?? 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  };
  const deadline = Date.now() + 20_000;
  for (const w of instances) {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`workerd exited (${proc.exitCode}): ${out}`);
      try {
        await fetch(`http://127.0.0.1:${w.port}/`, { method: 'HEAD' });
        break;
      } catch {
        if (Date.now() > deadline) {
          await stop();
          throw new Error(`workerd did not listen on ${w.port}: ${out}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
  return { proc, output: () => out, stop };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  const arg = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  if (cmd === 'build') {
    const b = await buildWorker();
    console.log(`${b.file}: ${kb(b.bytes)} (${kb(b.gzipBytes)} gzip); runtime imports: ${b.imports.join(', ')}`);
    return;
  }
  if (cmd === 'dev') {
    const db = arg('db') ?? process.env.PANEL_DB_URL ?? '';
    if (!db) throw new Error('usage: npm run worker:dev -- --db postgres://user@127.0.0.1:5432/panel [--port 8787]');
    const port = Number(arg('port') ?? (await freePort()));
    const b = await buildWorker(join(WORKER_OUT_DIR, 'dev'), { minify: false });
    console.log(`bundle ${kb(b.bytes)} (${kb(b.gzipBytes)} gzip)`);
    const text: Record<string, string> = { PANEL_DB_URL: db };
    if (process.env.PANEL_DB_AUTH_TOKEN) text.PANEL_DB_AUTH_TOKEN = process.env.PANEL_DB_AUTH_TOKEN;
    const w = await startWorkerd(b, [{ name: 'dev', port, text }], { stdio: 'inherit' });
    console.log(`subscription worker (workerd) listening on http://127.0.0.1:${port}/  (Ctrl-C stops it)`);
    const stop = () => void w.stop().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await new Promise((r) => w.proc.once('exit', r));
    return;
  }
  throw new Error('usage: scripts/worker.ts build | dev [--db URL] [--port N]');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
