// Self-update on the host (domain/ports/server-tools.ts PanelInstaller). Layout made by scripts/install.sh:
//   PREFIX/releases/<version>/   one unpacked release each (dist/, package.json, lock file, node_modules/)
//   PREFIX/current               symlink to the running release; the launcher starts PREFIX/current
//   PREFIX/update-pending.json   written here, read by the launcher (adapters/node/launcher.ts)
//   PREFIX/update-status.json    the launcher's verdict on the last update
import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { PanelInstaller } from '../domain/ports/server-tools.js';

export const PENDING_FILE = 'update-pending.json';
export const STATUS_FILE = 'update-status.json';

export interface PendingUpdate {
  fromVersion: string;
  toVersion: string;
  fromDir: string;
  toDir: string;
  dbFile: string | null;
  dbSnapshot: string | null;
  at: number;
}

export interface InstallerOptions {
  /** PANEL_PREFIX from the launcher; null when the panel was not started by it. */
  prefix: string | null;
  /** The libsql database file (restored from the snapshot on rollback); null for PostgreSQL. */
  dbFile: string | null;
  /** Stops the panel gracefully with the launcher's "restart me" exit code. */
  exitForRestart: () => void;
  env?: NodeJS.ProcessEnv;
}

function run(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : 1
        : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim() });
    });
  });
}

export function createPanelInstaller(opts: InstallerOptions): PanelInstaller {
  const env = opts.env ?? process.env;
  const prefix = opts.prefix;
  return {
    unavailable() {
      if (!prefix)
        return 'this panel was not started by its launcher: install a release with scripts/install.sh to update in place';
      if (!existsSync(join(prefix, 'current'))) return `${prefix}/current is missing: not an installed release layout`;
      try {
        accessSync(prefix, constants.W_OK);
        accessSync(join(prefix, 'releases'), constants.W_OK);
      } catch {
        return `${prefix} is not writable by the panel's user`;
      }
      return null;
    },

    assetName: (version) => `proxy-panel-${version}.tar.gz`,

    async stage(version, archive) {
      const releases = join(prefix!, 'releases');
      const dir = join(releases, version);
      if (existsSync(dir) && realpathSync(join(prefix!, 'current')) === realpathSync(dir))
        throw new Error(`${version} is the running release`);
      const tmp = join(releases, `.staging-${version}-${randomBytes(4).toString('hex')}`);
      mkdirSync(tmp, { recursive: true });
      try {
        const file = join(releases, `.${version}-${randomBytes(4).toString('hex')}.tar.gz`);
        writeFileSync(file, archive);
        const untar = await run(
          'tar',
          ['-xzf', file, '-C', tmp, '--strip-components=1', '--no-same-owner', '--no-same-permissions'],
          env,
          120_000,
        );
        rmSync(file, { force: true });
        if (untar.code !== 0) throw new Error(`the archive does not unpack: ${untar.output.slice(0, 300)}`);
        let pkg: { name?: unknown; version?: unknown };
        try {
          pkg = JSON.parse(readFileSync(join(tmp, 'package.json'), 'utf8'));
        } catch {
          throw new Error('the archive has no package.json');
        }
        if (pkg.name !== 'proxy-panel' || pkg.version !== version)
          throw new Error(`the archive holds ${String(pkg.name)} ${String(pkg.version)}, not proxy-panel ${version}`);
        for (const f of [
          'dist/adapters/node/main.js',
          'dist/adapters/node/launcher.js',
          'dist/adapters/node/cli.js',
          'node_modules',
        ]) {
          if (!existsSync(join(tmp, f))) throw new Error(`the archive has no ${f}`);
        }
        // The new build's own migrations check, against the live database.
        const check = await run(
          process.execPath,
          [join(tmp, 'dist/adapters/node/cli.js'), 'check-migrations'],
          env,
          60_000,
        );
        if (check.code !== 0)
          throw new Error(`its migrations check failed: ${check.output.split('\n').slice(-3).join(' ').slice(0, 300)}`);
        rmSync(dir, { recursive: true, force: true });
        renameSync(tmp, dir);
        return { dir };
      } catch (err) {
        rmSync(tmp, { recursive: true, force: true });
        throw err;
      }
    },

    async handOver(input) {
      const pending: PendingUpdate = {
        fromVersion: input.fromVersion,
        toVersion: input.toVersion,
        fromDir: realpathSync(join(prefix!, 'current')),
        toDir: input.dir,
        dbFile: opts.dbFile,
        dbSnapshot: input.dbSnapshot,
        at: Date.now(),
      };
      writeFileSync(join(prefix!, PENDING_FILE), JSON.stringify(pending, null, 2), { mode: 0o600 });
      // After the answer has gone out: a graceful stop, then the launcher switches and starts the new release.
      setTimeout(() => opts.exitForRestart(), 300).unref();
    },

    async lastResult() {
      if (!prefix) return null;
      try {
        return JSON.parse(readFileSync(join(prefix, STATUS_FILE), 'utf8'));
      } catch {
        return null;
      }
    },
  };
}
