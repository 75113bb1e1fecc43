// Atomic config writes: temp file (mode 0600) + fsync + rename + directory fsync.
import { closeSync, fsyncSync, openSync, renameSync, writeSync, constants, unlinkSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

/** Writes `text` (one string, or pieces of it, see json-text.ts) to `path` atomically. */
export function writeFileAtomic(path: string, text: string | Iterable<string>): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    for (const piece of typeof text === 'string' ? [text] : text) writeSync(fd, piece);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
    throw err;
  }
  try {
    const dfd = openSync(dirname(path), constants.O_RDONLY);
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    /* directory fsync is best effort */
  }
}
