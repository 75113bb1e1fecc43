import { access, constants, stat } from 'node:fs/promises';
import type { FileProbe } from '../domain/ports/runtime.js';

export const fileProbe: FileProbe = {
  async isReadableFile(path) {
    try {
      if (!(await stat(path)).isFile()) return false;
      await access(path, constants.R_OK);
      return true;
    } catch {
      return false;
    }
  },
};
