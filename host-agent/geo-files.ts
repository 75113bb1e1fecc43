// The geo file folder ($PANEL_DATA_DIR/bin, where the core looks for geoip/geosite assets): atomic replace
// (temporary file + rename) and delete, for plain file names only.
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { GeoFileStore } from '../domain/ports/geo-repo.js';

function safeName(fileName: string): string {
  if (!fileName || basename(fileName) !== fileName || fileName.startsWith('.') || !/^[A-Za-z0-9_.-]+$/.test(fileName)) {
    throw new Error(`refusing geo file name ${JSON.stringify(fileName)}`);
  }
  return fileName;
}

export function createGeoFileStore(dir: string): GeoFileStore {
  return {
    async write(fileName, body) {
      const target = join(dir, safeName(fileName));
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await writeFile(tmp, body, { mode: 0o600 });
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
    },
    async remove(fileName) {
      const target = join(dir, safeName(fileName));
      try {
        await stat(target);
      } catch {
        return false;
      }
      await rm(target, { force: true });
      return true;
    },
    async exists(fileName) {
      try {
        return (await stat(join(dir, safeName(fileName)))).isFile();
      } catch {
        return false;
      }
    },
  };
}
