// The ServerHost port on the panel host: the core release asset for this platform, installing the core binary
// from a release zip into $PANEL_DATA_DIR/bin, writing geo files there, reading the core's log files in the data
// directory, and the backups folder.
import { execFile } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  constants,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ServerHost } from '../domain/ports/server-tools.js';
import { parseVersion } from './core/binary.js';
import { readZipEntry } from './zip.js';

const MAX_BINARY_BYTES = 200 * 1024 * 1024;
const LOG_TAIL_BYTES = 4 * 1024 * 1024;
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** Log files the core writes in the data directory (the access log is switched on with ipLimitEnable). */
export const CORE_LOG_FILES = ['access.log', 'error.log'];

/** Xray's release asset name for a Node platform/arch (as published on the XTLS/Xray-core releases). */
export function xrayAssetName(platform: string = process.platform, arch: string = process.arch): string | null {
  const os = (
    {
      linux: 'linux',
      darwin: 'macos',
      win32: 'windows',
      freebsd: 'freebsd',
      openbsd: 'openbsd',
      android: 'android',
    } as Record<string, string>
  )[platform];
  const cpu = (
    {
      x64: '64',
      arm64: 'arm64-v8a',
      arm: 'arm32-v7a',
      ia32: '32',
      s390x: 's390x',
      riscv64: 'riscv64',
      ppc64: 'linux-ppc64le',
      loong64: 'loong64',
      mips64el: 'mips64le',
      mipsel: 'mips32le',
    } as Record<string, string>
  )[arch];
  if (!os || !cpu) return null;
  if (cpu === 'linux-ppc64le') return os === 'linux' ? 'Xray-linux-ppc64le.zip' : null;
  return `Xray-${os}-${cpu}.zip`;
}

/** Writes bytes atomically: temp file, fsync, rename. */
export function writeBytesAtomic(path: string, data: Uint8Array, mode = 0o600): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, mode);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
    throw err;
  }
}

function versionOf(bin: string): Promise<{ flavour: string; version: string }> {
  return new Promise((resolve, reject) => {
    execFile(bin, ['-version'], { timeout: 10_000 }, (err, stdout, stderr) => {
      if (err && !stdout) return reject(new Error(`the unpacked binary does not run: ${err.message}`));
      resolve(parseVersion(`${stdout}\n${stderr}`));
    });
  });
}

/** The last `maxBytes` of a file as lines (the first, partial line dropped when cut). */
function tailLines(path: string, maxBytes: number): string[] {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return [];
    size = st.size;
  } catch {
    return [];
  }
  const len = Math.min(size, maxBytes);
  const buf = Buffer.alloc(len);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, len, size - len);
  } finally {
    closeSync(fd);
  }
  const lines = buf.toString('utf8').split('\n');
  if (len < size) lines.shift();
  return lines.filter((l) => l.trim() !== '');
}

const STAMP = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?/;

export interface ServerHostOptions {
  dataDir: string;
  /** Overrides for tests. */
  platform?: string;
  arch?: string;
}

export function createServerHost(opts: ServerHostOptions): ServerHost {
  const bin = join(opts.dataDir, 'bin');
  const exe = (opts.platform ?? process.platform) === 'win32' ? 'xray.exe' : 'xray';
  return {
    coreAssetName: () => xrayAssetName(opts.platform, opts.arch),

    async installCoreBinary(zip: Uint8Array): Promise<string> {
      const data = readZipEntry(zip, exe, MAX_BINARY_BYTES);
      mkdirSync(bin, { recursive: true, mode: 0o700 });
      const target = join(bin, exe);
      // Unpack next to the target, check that it runs and is Xray, then move it into place.
      const staged = join(bin, `.${exe}.new.${process.pid}`);
      writeBytesAtomic(staged, data, 0o700);
      try {
        const v = await versionOf(staged);
        if (v.flavour !== 'xray')
          throw new Error('the unpacked binary is not Xray (its -version output was not recognised)');
        renameSync(staged, target);
      } catch (err) {
        try {
          unlinkSync(staged);
        } catch {
          /* gone */
        }
        throw err;
      }
      return target;
    },

    async writeGeoFile(name: string, data: Uint8Array): Promise<void> {
      if (!SAFE_NAME.test(name) || name.includes('..') || !name.endsWith('.dat'))
        throw new Error(`refused geo file name ${name}`);
      mkdirSync(bin, { recursive: true, mode: 0o700 });
      writeBytesAtomic(join(bin, name), data);
    },

    async coreLogLines(maxLines: number): Promise<string[]> {
      const perFile = CORE_LOG_FILES.map((f) => tailLines(join(opts.dataDir, f), LOG_TAIL_BYTES));
      // Merge by the leading timestamp both logs carry; lines without one stay after their predecessor.
      const tagged = perFile.flatMap((lines, fileIdx) => {
        let last = '';
        return lines.map((line, i) => {
          const m = STAMP.exec(line);
          if (m) last = m[0].slice(0, 19);
          return { line, key: last, fileIdx, i };
        });
      });
      tagged.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.fileIdx - b.fileIdx || a.i - b.i));
      return tagged.slice(-maxLines).map((t) => t.line);
    },

    async backupPath(name: string): Promise<string> {
      if (!SAFE_NAME.test(name) || name.includes('..')) throw new Error(`refused backup file name ${name}`);
      const dir = join(opts.dataDir, 'backups');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      let path = join(dir, name);
      for (let n = 1; existsSync(path); n++) path = join(dir, name.replace(/(\.db)?$/, `-${n}$1`));
      return path;
    },
  };
}
