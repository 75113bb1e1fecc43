// Every setting key with its schema and default (RUNTIME.md "Setting keys"). One place decides what a valid
// value is, for /panel/setting/update and for `npm run panel -- set` alike.
import { z } from 'zod';
import { parseCidrList, parseIp } from '../auth/cidr.js';

const port = z.number().int().min(1, 'must be a port from 1 to 65535').max(65535, 'must be a port from 1 to 65535');
const path = z
  .string()
  .max(256)
  .regex(/^\/([A-Za-z0-9._~-]+\/)*$/, 'must be a path like /sub/ (letters, digits, . _ ~ -; begins and ends with /)')
  .refine((s) => !s.split('/').some((seg) => seg === '.' || seg === '..'), 'must not contain . or .. segments');
const hostName =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const listen = z
  .string()
  .refine((s) => s === '' || parseIp(s) !== null || hostName.test(s), 'must be empty or an IP address or host name');
const domainName = z.string().refine((s) => s === '' || hostName.test(s), 'must be empty or a domain name');
const filePath = z.string().max(4096);
const url = z.string().refine((s) => s === '' || /^https?:\/\/[^\s]+$/.test(s), 'must be empty or an http(s) URL');
const cidrList = z
  .string()
  .max(4096)
  .refine(
    (s) => parseCidrList(s).bad.length === 0,
    'must be a comma-separated list of CIDRs such as 127.0.0.1/32,::1/128',
  );
// TOTP secrets: base32, at least 128 bits (26 characters); spaces and padding are ignored.
const base32 = z
  .string()
  .refine(
    (s) => s === '' || /^[A-Z2-7]{26,128}$/.test(s),
    'must be a base32 secret of 26 to 128 characters (A-Z, 2-7)',
  );
const timeZone = z
  .string()
  .min(1)
  .max(64)
  .refine((s) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: s });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as UTC or Europe/Berlin');
const nonNegInt = z.number().int().min(0, 'must be 0 or more');

export const settingShapes = {
  webListen: listen,
  webPort: port,
  webBasePath: path,
  webCertFile: filePath,
  webKeyFile: filePath,
  webDomain: domainName,
  sessionMaxAge: z.number().int().min(1, 'must be at least 1 minute').max(525600),
  pageSize: z.number().int().min(1).max(200),
  timeLocation: timeZone,
  trustedProxyCIDRs: cidrList,
  expireDiff: nonNegInt,
  trafficDiff: nonNegInt,
  restartCoreOnClientDisable: z.boolean(),
  ipLimitEnable: z.boolean(),
  subEnable: z.boolean(),
  subListen: listen,
  subPort: port,
  subPath: path,
  subDomain: domainName,
  subCertFile: filePath,
  subKeyFile: filePath,
  subURI: url,
  subUpdates: z.number().int().min(1).max(10080),
  subEncrypt: z.boolean(),
  subShowInfo: z.boolean(),
  subTitle: z.string().max(256),
  subSupportUrl: url,
  subProfileUrl: url,
  subAnnounce: z.string().max(2048),
  subEnableRouting: z.boolean(),
  subRoutingRules: z.string().max(65536),
  subJsonEnable: z.boolean(),
  subJsonPath: path,
  subClashEnable: z.boolean(),
  subClashPath: path,
  tgBotEnable: z.boolean(),
  tgBotToken: z.string().max(256),
  tgBotChatId: z.string().refine(
    (s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .every((id) => /^-?\d+$/.test(id)),
    'must be comma-separated numeric chat ids',
  ),
  tgBotApiUrl: url,
  twoFactorEnable: z.boolean(),
  twoFactorToken: base32,
} satisfies Record<string, z.ZodType>;

export type SettingKey = keyof typeof settingShapes;
export type Settings = { [K in SettingKey]: z.infer<(typeof settingShapes)[K]> };

export const DEFAULT_SETTINGS: Settings = {
  webListen: '',
  webPort: 2053,
  webBasePath: '/',
  webCertFile: '',
  webKeyFile: '',
  webDomain: '',
  sessionMaxAge: 360,
  pageSize: 25,
  timeLocation: 'UTC',
  trustedProxyCIDRs: '127.0.0.1/32,::1/128',
  expireDiff: 0,
  trafficDiff: 0,
  restartCoreOnClientDisable: false,
  ipLimitEnable: false,
  subEnable: true,
  subListen: '',
  subPort: 10882,
  subPath: '/sub/',
  subDomain: '',
  subCertFile: '',
  subKeyFile: '',
  subURI: '',
  subUpdates: 12,
  subEncrypt: true,
  subShowInfo: true,
  subTitle: '',
  subSupportUrl: '',
  subProfileUrl: '',
  subAnnounce: '',
  subEnableRouting: false,
  subRoutingRules: '',
  subJsonEnable: false,
  subJsonPath: '/json/',
  subClashEnable: false,
  subClashPath: '/clash/',
  tgBotEnable: false,
  tgBotToken: '',
  tgBotChatId: '',
  tgBotApiUrl: 'https://api.telegram.org',
  twoFactorEnable: false,
  twoFactorToken: '',
};

export const SETTING_KEYS = Object.keys(settingShapes) as SettingKey[];

/** Normalises a base path to begin and end with `/` (RUNTIME.md: PANEL_BASE_PATH). */
export function normaliseBasePath(p: string): string {
  let s = p.trim();
  if (!s.startsWith('/')) s = `/${s}`;
  if (!s.endsWith('/')) s = `${s}/`;
  return s.replace(/\/{2,}/g, '/');
}

/** Keys whose values are URL paths (normalised to begin and end with `/` before validation). */
export const PATH_KEYS: readonly SettingKey[] = ['webBasePath', 'subPath', 'subJsonPath', 'subClashPath'];

/**
 * Coerces a loosely typed value (a form field, a CLI argument, a string from an old client) to the key's type.
 * Numbers and booleans sent as strings are accepted, paths are normalised, TOTP secrets upper-cased; anything
 * else is left for the schema to refuse.
 */
export function coerceSetting(key: SettingKey, value: unknown): unknown {
  const def = DEFAULT_SETTINGS[key];
  if (typeof value !== 'string') return value;
  if (PATH_KEYS.includes(key)) return normaliseBasePath(value);
  if (key === 'twoFactorToken') return value.replace(/[\s=]/g, '').toUpperCase();
  if (typeof def === 'number' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  if (typeof def === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Validates one value for a key: the coerced value, or the message naming the key. */
export function parseSetting<K extends SettingKey>(
  key: K,
  value: unknown,
): { ok: true; value: Settings[K] } | { ok: false; msg: string } {
  const r = settingShapes[key].safeParse(coerceSetting(key, value));
  if (r.success) return { ok: true, value: r.data as Settings[K] };
  return { ok: false, msg: `${key}: ${r.error.issues[0]?.message ?? 'invalid value'}` };
}

/** The effective settings as the API returns them. */
export const settingsObj = z.object(settingShapes).meta({ id: 'Settings' });

type PatchShape = { [K in SettingKey]: z.ZodOptional<z.ZodType<Settings[K], unknown>> };

/**
 * POST /panel/setting/update: any subset of the settings keys, each coerced (form values arrive as strings) and
 * checked by its shape here; unknown keys are dropped (the reference panel's UI sends extra keys). The settings
 * service then checks the keys together; the CLI's `set` parses its one key with `parseSetting`.
 */
export const settingsPatchBody = z
  .object(
    Object.fromEntries(
      SETTING_KEYS.map((key) => [key, z.preprocess((v) => coerceSetting(key, v), settingShapes[key]).optional()]),
    ) as unknown as PatchShape,
    { error: 'must be a settings object' },
  )
  .meta({ description: 'Any subset of the settings keys (see the Settings schema)' });
