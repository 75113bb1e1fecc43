// The data directory holds the session secret, tokens, password hash and keys: only the panel's own user may
// read it. New files get that through the umask (libsql and the core create files we do not open ourselves);
// files of an older install, or written under a looser umask, are tightened once at start.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Permission bits of the data directory (and every directory in it) and of the files in it. */
export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;
/** Executable files (core binaries) keep their execute bit for the owner. */
const EXEC_FILE_MODE = 0o700;

/** Files created by this process from now on are private to its user, whatever umask it was started with. */
export function usePrivateUmask(): void {
  process.umask(0o077);
}

export interface SecureResult {
  /** Paths whose permissions were narrowed. */
  fixed: string[];
  /** The walk was skipped: the data directory is the filesystem root or a home directory. */
  skipped?: string;
}

/**
 * Creates the data directory (0700) and narrows everything already in it to the owner: directories 0700,
 * files 0600 (0700 when executable). Symbolic links are not followed. `extraFiles` (a database file kept
 * outside the data directory, with its journal files) are narrowed too when they exist.
 */
export function secureDataDir(dataDir: string, extraFiles: string[] = []): SecureResult {
  const root = resolve(dataDir);
  mkdirSync(root, { recursive: true, mode: DATA_DIR_MODE });
  const fixed: string[] = [];
  const narrow = (path: string) => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return; // gone meanwhile, or never there
    }
    if (st.isSymbolicLink()) return;
    const current = st.mode & 0o777;
    const wanted = st.isDirectory() ? DATA_DIR_MODE : current & 0o100 ? EXEC_FILE_MODE : DATA_FILE_MODE;
    if ((current & 0o077) !== 0 || (st.isDirectory() && current !== wanted)) {
      chmodSync(path, wanted);
      fixed.push(path);
    }
    if (st.isDirectory() && path !== root) walk(path);
  };
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) narrow(join(dir, name));
  };
  // A data directory set to / or a home directory by mistake must not have its whole tree rewritten.
  const unsafe = root === dirname(root) || root === resolve(homedir());
  if (!unsafe) {
    narrow(root);
    walk(root);
  }
  for (const file of extraFiles) narrow(file);
  return unsafe ? { fixed, skipped: `${root} is not a directory of the panel's own` } : { fixed };
}

/** The database file and its journal files when the database is a local file (`file:` URL), else none. */
export function databaseFiles(dbUrl: string): string[] {
  if (!dbUrl.startsWith('file:')) return [];
  const path = resolve(decodeURIComponent(dbUrl.slice('file:'.length).split('?')[0]!));
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}
