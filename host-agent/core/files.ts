// Atomic config writes: temp file (mode 0600) + fsync + rename + directory fsync.
import { closeSync, fsyncSync, openSync, renameSync, writeSync, constants, unlinkSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

export function writeFileAtomic(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* gone */ }
    throw err;
  }
  try {
    const dfd = openSync(dirname(path), constants.O_RDONLY);
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch { /* directory fsync is best effort */ }
}
