#!/usr/bin/env node
// `npm run panel -- <command>` (also the package's `bin`): the command-line tool of RUNTIME.md. It opens the
// store from the same environment as `npm start` and calls the same domain services as the API, so it validates
// exactly as the API does.
import { mkdirSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../storage/store.js';
import { checkMigrations, runMigrations } from '../../storage/migrate.js';
import { dialectOf, redact } from '../../storage/conn.js';
import { copyDatabase } from '../../storage/copy.js';
import { createServerHost } from '../../host-agent/server-host.js';
import { closeSync, existsSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createServices, type Services } from '../../domain/services.js';
import { EventBus } from '../../domain/shared/events.js';
import { systemClock } from '../../domain/shared/clock.js';
import { DomainError } from '../../domain/shared/errors.js';
import { tokenName } from '../../domain/tokens/input.js';
import { describeZodError } from '../../domain/shared/zod-error.js';
import { SETTING_KEYS } from '../../domain/settings/schema.js';
import { fileProbe } from '../../host-agent/files.js';
import { UnavailableCore } from '../../host-agent/core/unavailable-core.js';
import { readConfig, type NodeConfig } from './config.js';
import { secureFiles } from './secure-files.js';

const USAGE = `usage: npm run panel -- <command>

  admin --username U --password P [--reset-2fa]   set the admin credential (signs every session out)
  settings [--json]                               print the effective settings
  set KEY VALUE                                   write one setting, validated as /panel/setting/update does
  migrate                                         run the database migrations
  check-migrations                                check this build knows every migration the database has
  token create NAME                               create an API token and print it
  db export FILE                                  write a portable SQLite snapshot of the whole panel
  db import FILE                                  replace the panel data with a snapshot (either backend) or a
                                                  3x-ui x-ui.db; the previous data is kept in $PANEL_DATA_DIR/backups
  db copy --to URL [--force]                      copy the panel to another database (file: or postgres://)`;

class UsageError extends Error {}

/** `--name value` options and positional arguments. */
function parseArgs(args: string[], flags: string[], valued: string[]) {
  const opts: Record<string, string | true> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (flags.includes(name)) opts[name] = true;
    else if (valued.includes(name)) {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`--${name} needs a value`);
      opts[name] = v;
    } else throw new UsageError(`unknown option --${name}`);
  }
  return { opts, rest };
}

async function withServices<T>(config: NodeConfig, fn: (s: Services) => Promise<T>): Promise<T> {
  secureFiles(config);
  const store = await openStore(config.dbUrl);
  try {
    const services = createServices({
      store,
      core: new UnavailableCore('the command-line tool does not run the core'),
      clock: systemClock,
      events: new EventBus(),
      files: fileProbe,
      panel: { requestRestart: () => {} },
      runtime: { panelVersion: config.panelVersion, dataDir: config.dataDir },
      settingsOverrides: config.overrides,
      serverTools: { host: createServerHost({ dataDir: config.dataDir }) },
    });
    await services.auth.init();
    return await fn(services);
  } finally {
    await store.close();
  }
}

export async function runCli(
  argv: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    out(USAGE);
    return command ? 0 : 2;
  }
  const config = readConfig(env);
  switch (command) {
    case 'admin': {
      const { opts, rest } = parseArgs(args, ['reset-2fa'], ['username', 'password']);
      if (rest.length || typeof opts.username !== 'string' || typeof opts.password !== 'string') {
        throw new UsageError('admin needs --username U --password P');
      }
      await withServices(config, async (s) => {
        await s.auth.setAdmin(opts.username as string, opts.password as string);
        if (opts['reset-2fa']) await s.settings.update({ twoFactorEnable: false, twoFactorToken: '' });
      });
      out(
        `admin credential set for ${(opts.username as string).trim()}; every session was signed out${opts['reset-2fa'] ? '; two-factor login turned off' : ''}`,
      );
      return 0;
    }
    case 'settings': {
      const { opts, rest } = parseArgs(args, ['json'], []);
      if (rest.length) throw new UsageError('settings takes only --json');
      const settings = await withServices(config, (s) => s.settings.effective());
      if (opts.json) {
        out(JSON.stringify(settings, null, 2));
      } else {
        for (const key of SETTING_KEYS) {
          const env = config.overrideSources[key];
          out(
            `${key} = ${JSON.stringify(settings[key])}${env ? `   (from ${env}; stored value ignored while it is set)` : ''}`,
          );
        }
      }
      return 0;
    }
    case 'set': {
      if (args.length !== 2) throw new UsageError('set needs KEY VALUE');
      const [key, value] = args as [string, string];
      const { changed } = await withServices(config, (s) => s.settings.set(key, value));
      const env = config.overrideSources[key as keyof typeof config.overrideSources];
      out(changed.length ? `${key} saved` : `${key} unchanged`);
      if (env) out(`note: ${env} is set and overrides ${key} while it is set`);
      if (
        changed.length &&
        [
          'webListen',
          'webPort',
          'webBasePath',
          'webCertFile',
          'webKeyFile',
          'subEnable',
          'subListen',
          'subPort',
          'subCertFile',
          'subKeyFile',
        ].includes(key)
      ) {
        out('a running panel applies this after a restart (Settings → restart panel, or restart the service)');
      }
      return 0;
    }
    case 'migrate': {
      if (args.length) throw new UsageError('migrate takes no arguments');
      secureFiles(config);
      await runMigrations(config.dbUrl);
      out(`migrations applied to ${redact(config.dbUrl)}`);
      return 0;
    }
    case 'check-migrations': {
      // Run by the panel update on a staged release, against the live database, before switching to it.
      if (args.length) throw new UsageError('check-migrations takes no arguments');
      const r = await checkMigrations(config.dbUrl);
      if (r.unknown > 0) {
        out(
          `${r.unknown} migration(s) applied to ${redact(config.dbUrl)} are unknown to this build: it is older than the data`,
        );
        return 1;
      }
      out(`migrations ok: ${r.applied} applied, ${r.pending} pending of ${r.known} known`);
      return 0;
    }
    case 'token': {
      if (args[0] !== 'create' || args.length !== 2) throw new UsageError('token create NAME');
      const name = tokenName.safeParse(args[1]);
      if (!name.success) throw new DomainError(describeZodError(name.error, 'name'));
      const row = await withServices(config, (s) => s.tokens.create(name.data));
      out(row.token);
      return 0;
    }
    case 'db':
      return dbCommand(config, args, out, env);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** How often a long copy prints its progress line. */
const PROGRESS_EVERY_MS = 2000;

async function dbCommand(
  config: NodeConfig,
  args: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'export': {
      if (rest.length !== 1) throw new UsageError('db export FILE');
      const file = resolve(rest[0]!);
      if (existsSync(file)) throw new DomainError(`${file} exists; remove it or choose another name`);
      await withServices(config, (s) => s.serverTools.exportDatabase(file));
      out(`snapshot of ${redact(config.dbUrl)} written to ${file}`);
      return 0;
    }
    case 'import': {
      if (rest.length !== 1) throw new UsageError('db import FILE');
      const file = resolve(rest[0]!);
      const r = await withServices(config, (s) => s.serverTools.importDatabaseFile(file));
      out(
        `imported ${r.rows} rows${r.format === 'x-ui' ? ' converted from a 3x-ui database' : ''} into ${redact(config.dbUrl)}; the previous data is kept at ${r.backup}`,
      );
      if (r.format === 'x-ui') {
        out(
          `converted: ${Object.entries(r.converted)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}`,
        );
        for (const s of r.skipped) out(`not converted: ${s.what}: ${s.reason}`);
      }
      if (r.newAdminPassword) out(`the admin password was reset (shown once): ${r.newAdminPassword}`);
      out('restart the panel if it is running');
      return 0;
    }
    case 'copy': {
      const { opts, rest: pos } = parseArgs(rest, ['force'], ['to']);
      if (pos.length || typeof opts.to !== 'string') throw new UsageError('db copy --to URL [--force]');
      const to = opts.to.startsWith('/') ? `file:${opts.to}` : opts.to;
      if (dialectOf(to) === 'sqlite' && to.startsWith('file:')) {
        const path = to.slice(5);
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        // SQLite keeps the mode of an existing file (and gives it to its journal): readable by the owner only.
        if (!existsSync(path)) closeSync(openSync(path, 'wx', 0o600));
      }
      if (to === config.dbUrl) throw new DomainError('--to is the configured database itself');
      secureFiles(config);
      const started = Date.now();
      let last = started;
      const every = Number(env.PANEL_DB_COPY_PROGRESS_MS ?? PROGRESS_EVERY_MS);
      const r = await copyDatabase(config.dbUrl, to, {
        force: opts.force === true,
        onProgress: (p) => {
          const now = Date.now();
          if (now - last < every) return;
          last = now;
          out(
            `copying: ${p.done}/${p.total} rows (${Math.round((p.done / Math.max(p.total, 1)) * 100)}%, table ${p.table})`,
          );
        },
      });
      out(
        `copied ${r.rows} rows in ${r.tables} tables from ${redact(config.dbUrl)} to ${redact(to)} in ${((Date.now() - started) / 1000).toFixed(1)} s${r.replaced ? ` (replacing ${r.replaced} rows)` : ''}`,
      );
      out(`to run the panel on it: set PANEL_DB_URL=${redact(to)} and restart`);
      return 0;
    }
    default:
      throw new UsageError('db export FILE | db import FILE | db copy --to URL [--force]');
  }
}

function invokedDirectly(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  runCli(process.argv.slice(2), (line) => console.log(line))
    .then((code) => process.exit(code))
    .catch((err) => {
      if (err instanceof UsageError) console.error(`${err.message}\n\n${USAGE}`);
      else if (err instanceof DomainError) console.error(`error: ${err.message}`);
      else console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(err instanceof UsageError ? 2 : 1);
    });
}
