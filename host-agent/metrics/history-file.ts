// The HistoryFile port: the metric history rings as JSON in the data directory, written atomically
// (temporary file, then rename) so a crash mid-write never leaves a torn file.
import { readFile, rename, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistoryFile } from '../../domain/ports/host.js';

export const HISTORY_FILE_NAME = 'metric-history.json';

export function createHistoryFile(dataDir: string, name = HISTORY_FILE_NAME): HistoryFile & { path: string } {
  const path = join(dataDir, name);
  return {
    path,
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch {
        return null;
      }
      try {
        return JSON.parse(text);
      } catch {
        return null;
      }
    },
    async save(data) {
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        await writeFile(tmp, JSON.stringify(data), { mode: 0o600 });
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        throw err;
      }
    },
  };
}
