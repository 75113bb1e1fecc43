// Compiles a benchmark's child-process entry (e.g. bench/clients-server.ts) to JavaScript next to the build, so the
// child runs as plain `node` on dist/ like `npm start` does (no TypeScript loader in the measured process).
//
// `npm run bench` builds first (tsconfig.build.json: domain, handlers, storage, host-agent, adapters → dist/). This
// transpiles the entry and the files it reaches by relative imports that the build does not contain (the test
// doubles in test/support) with the project's compiler options to the same place tsc would put them
// (dist/bench/…, dist/test/…). So `../domain/x.js` in the entry is the build's dist/domain/x.js.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

function readConfig(file: string) {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, file),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${file}`);
  return parsed;
}

/** Returns the path of the compiled entry (dist/<entry>.js). Throws if the build is missing. */
export function compileChild(entry: string): string {
  const build = readConfig('tsconfig.build.json');
  const built = new Set(build.fileNames.map((f) => resolve(f)));
  const options = build.options;
  const outDir = options.outDir!;
  const seen = new Set<string>();
  const todo = [resolve(root, entry)];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    const out = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
    // ESNext: what NodeNext emits for this package ("type": "module"); transpileModule alone cannot tell.
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { ...options, module: ts.ModuleKind.ESNext, sourceMap: false, declaration: false },
      fileName: file,
    });
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    for (const imp of ts.preProcessFile(source, true, true).importedFiles) {
      if (!imp.fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), imp.fileName).replace(/\.js$/, '.ts');
      if (built.has(target)) {
        // Part of the build: it must be there already (`npm run build`).
        const js = join(outDir, relative(root, target)).replace(/\.ts$/, '.js');
        try {
          readFileSync(js);
        } catch {
          throw new Error(`${relative(root, js)} is missing: run npm run build first`);
        }
      } else if (!target.includes(`${sep}node_modules${sep}`)) todo.push(target);
    }
  }
  return join(outDir, entry).replace(/\.ts$/, '.js');
}

/**
 * The environment assignments and node options of `npm start` (package.json `scripts.start`, e.g.
 * `MALLOC_MMAP_THRESHOLD_=131072 node dist/adapters/node/main.js`), so a benchmark's server child runs with the
 * runtime settings users get.
 */
export function startRuntime(): { env: Record<string, string>; execArgv: string[] } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const m = /^((?:\w+=\S*\s+)*)node\s+((?:-\S+\s+)*)\S+\.js$/.exec(pkg.scripts.start!.trim());
  if (!m) throw new Error(`cannot read package.json scripts.start: ${pkg.scripts.start}`);
  const env = Object.fromEntries(
    m[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
  );
  return { env, execArgv: m[2]!.trim().split(/\s+/).filter(Boolean) };
}
