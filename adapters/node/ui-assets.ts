// Reads the built browser UI (dist/ui: two HTML entries and hashed, precompressed assets) into memory once per
// listener start and hands it to the handlers. Absent build: no UI (the API still works).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { UiAsset, UiAssets } from '../../handlers/ui.js';

/** dist/ui next to the compiled adapter, or the project's dist/ui when running from source (tests, tsx). */
export function uiBuildDir(): string | null {
  for (const rel of ['../../ui/', '../../dist/ui/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'login.html')) && existsSync(join(dir, 'assets'))) return dir;
  }
  return null;
}

export function loadUiAssets(dir: string | null = uiBuildDir()): UiAssets | undefined {
  if (!dir) return undefined;
  const files = new Map<string, UiAsset>();
  const assets = join(dir, 'assets');
  for (const name of readdirSync(assets)) {
    if (name.endsWith('.br') || name.endsWith('.gz')) continue;
    const read = (suffix: string) =>
      existsSync(join(assets, name + suffix)) ? new Uint8Array(readFileSync(join(assets, name + suffix))) : undefined;
    files.set(name, { body: new Uint8Array(readFileSync(join(assets, name))), br: read('.br'), gzip: read('.gz') });
  }
  return {
    loginHtml: readFileSync(join(dir, 'login.html'), 'utf8'),
    appHtml: readFileSync(join(dir, 'app.html'), 'utf8'),
    asset: (name) => files.get(name),
  };
}
