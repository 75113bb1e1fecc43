// The API reference page's renderer (Swagger UI from the swagger-ui-dist package), read from the installed
// package and kept in memory after the first read: the panel serves it itself, no CDN.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DocsAssets } from '../domain/ports/docs-assets.js';

const FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

export function swaggerUiAssets(): DocsAssets {
  const cache = new Map<string, Promise<Uint8Array | null>>();
  let dir: string | null | undefined;
  const root = (): string | null => {
    if (dir === undefined) {
      try {
        dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
      } catch {
        dir = null;
      }
    }
    return dir;
  };
  return {
    read(file) {
      if (!FILES.has(file)) return Promise.resolve(null);
      let p = cache.get(file);
      if (!p) {
        const d = root();
        p = d
          ? readFile(join(d, file)).then(
              (b) => new Uint8Array(b),
              () => null,
            )
          : Promise.resolve(null);
        cache.set(file, p);
      }
      return p;
    },
  };
}
