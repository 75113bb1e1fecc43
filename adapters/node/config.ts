// The environment of RUNTIME.md, read once at start-up (by `npm start` and by the CLI alike).
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseSetting, type SettingKey, type Settings } from '../../domain/settings/schema.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface NodeConfig {
  dataDir: string;
  dbUrl: string;
  /** Environment values that override stored settings while set. */
  overrides: Partial<Settings>;
  /** Which environment variable overrides which setting (for `settings` and the log). */
  overrideSources: Partial<Record<SettingKey, string>>;
  adminUsername?: string;
  adminPassword?: string;
  coreBin?: string;
  coreApiPort: number;
  logLevel: LogLevel;
  panelVersion: string;
}

/** Environment variable → the setting it overrides (RUNTIME.md "Environment"). */
export const ENV_OVERRIDES: readonly (readonly [string, SettingKey])[] = [
  ['PANEL_LISTEN', 'webListen'],
  ['PANEL_PORT', 'webPort'],
  ['PANEL_BASE_PATH', 'webBasePath'],
  ['SUB_LISTEN', 'subListen'],
  ['SUB_PORT', 'subPort'],
];

function intEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port from 1 to 65535, got "${v}"`);
  return n;
}

let cachedVersion: string | undefined;
export function panelVersion(): string {
  cachedVersion ??= (JSON.parse(readFileSync(findPackageJson(), 'utf8')) as { version: string }).version;
  return cachedVersion;
}

function findPackageJson(): string {
  // Works from the sources (adapters/node) and from the build (dist/adapters/node).
  for (const rel of ['../../package.json', '../../../package.json']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    try {
      if (JSON.parse(readFileSync(p, 'utf8')).name === 'proxy-panel') return p;
    } catch {
      /* try the next */
    }
  }
  throw new Error('package.json not found');
}

/** Reads and validates the environment; a bad value throws with the variable's name. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const dataDir = resolve(env.PANEL_DATA_DIR || './data');
  const overrides: Record<string, unknown> = {};
  const overrideSources: Partial<Record<SettingKey, string>> = {};
  for (const [name, key] of ENV_OVERRIDES) {
    const raw = env[name];
    // An empty listen address means "all addresses"; an empty port or path means "unset".
    if (raw === undefined || (raw === '' && !name.endsWith('_LISTEN'))) continue;
    if (name.endsWith('_PORT')) intEnv(env, name);
    const parsed = parseSetting(key, raw);
    if (!parsed.ok) throw new Error(`${name}: ${parsed.msg}`);
    overrides[key] = parsed.value;
    overrideSources[key] = name;
  }
  const level = (env.PANEL_LOG_LEVEL || 'info').toLowerCase();
  if (!['debug', 'info', 'warn', 'error'].includes(level))
    throw new Error(`PANEL_LOG_LEVEL must be debug, info, warn or error, got "${level}"`);
  return {
    dataDir,
    dbUrl: env.PANEL_DB_URL || `file:${resolve(dataDir, 'panel.db')}`,
    overrides: overrides as Partial<Settings>,
    overrideSources,
    adminUsername: env.PANEL_ADMIN_USERNAME || undefined,
    adminPassword: env.PANEL_ADMIN_PASSWORD || undefined,
    coreBin: env.PANEL_CORE_BIN || undefined,
    coreApiPort: intEnv(env, 'PANEL_CORE_API_PORT') ?? 62789,
    logLevel: level as LogLevel,
    panelVersion: panelVersion(),
  };
}
