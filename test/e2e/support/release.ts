// Release archives for the install and self-update tests, laid out as `npm run release` lays them out, made
// from the built dist/; node_modules is a link to the checkout's (offline, and no 100 MB copy per archive).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CURRENT_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

/** Writes `work/stage-<v>/proxy-panel-<v>.tar.gz` and returns its path. `tweak` may change the tree first. */
export function makeReleaseArchive(work: string, version: string, tweak?: (dir: string) => void): string {
  const stage = join(work, `stage-${version}`);
  const dir = join(stage, `proxy-panel-${version}`);
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  cpSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  tweak?.(dir);
  const out = join(stage, `proxy-panel-${version}.tar.gz`);
  execFileSync('tar', ['-czf', out, '-C', stage, `proxy-panel-${version}`]);
  return out;
}
