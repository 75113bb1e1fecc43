// Finding the core binary and telling its flavour from `-version` (first word: Xray or V2Ray).
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { CoreFlavour } from '../../domain/ports/core.js';

/** Resolves a binary name through PATH (spawn does the same, but we need the path for v2ctl and pid checks). */
export function resolveBinary(bin: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const executable = (p: string) => {
    try {
      if (!statSync(p).isFile()) return false;
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (bin.includes('/')) return executable(bin) ? bin : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, bin);
    if (executable(p)) return p;
  }
  return null;
}

/** `$dataDir/bin/xray` when present, else `xray` on PATH (RUNTIME.md PANEL_CORE_BIN default). */
export function defaultCoreBin(dataDir: string): string {
  const local = join(dataDir, 'bin', 'xray');
  return resolveBinary(local) ?? 'xray';
}

export function parseVersion(output: string): { flavour: CoreFlavour; version: string } {
  const first = output.trim().split('\n')[0] ?? '';
  const m = /^(\S+)\s+v?(\d+\.\d+(?:\.\d+)?\S*)/.exec(first.trim());
  if (!m) return { flavour: 'unknown', version: '' };
  const word = m[1]!.toLowerCase();
  return { flavour: word === 'xray' ? 'xray' : word === 'v2ray' ? 'v2ray' : 'unknown', version: m[2]! };
}

export function detectVersion(bin: string): Promise<{ flavour: CoreFlavour; version: string }> {
  return new Promise((resolve, reject) => {
    execFile(bin, ['-version'], { timeout: 5000 }, (err, stdout, stderr) => {
      if (err && !stdout) return reject(err);
      resolve(parseVersion(`${stdout}\n${stderr}`));
    });
  });
}

/** The V2Ray helper that converts JSON to protobuf (`v2ctl config`), next to the binary. */
export function v2ctlFor(resolvedBin: string): string | null {
  const p = join(dirname(resolvedBin), 'v2ctl');
  return isAbsolute(p) && resolveBinary(p) ? p : null;
}
