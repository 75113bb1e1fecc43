// Input and answer schemas of the server tools API (/panel/api/server/…, /panel/api/backuptotgbot).
import { z } from 'zod';

export const countParam = z.object({
  count: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(10_000, 'must be at most 10000')),
});

/** `true`/`false` as booleans or strings (form fields are strings). */
const flag = z
  .union([z.boolean(), z.string()])
  .optional()
  .transform((v) => v === true || v === 'true');

export const logsBody = z.object({
  level: z.string().max(16).optional().default('info'),
  syslog: z.union([z.boolean(), z.string()]).optional(),
});

export const coreLogsBody = z.object({
  filter: z.string().max(200).optional().default(''),
  showDirect: flag,
  showBlocked: flag,
  showProxy: flag,
});

export const echBody = z.object({
  sni: z.string({ error: 'is required' }).max(253).meta({ example: 'cdn.example.com' }),
});
export const geoFileBody = z.object({ fileName: z.string().max(64).optional() });
export const geoFileParam = z.object({ fileName: z.string().max(64) });
export const versionParam = z.object({ version: z.string().max(32).meta({ example: 'v25.10.15' }) });

/** POST /server/importDB: multipart/form-data with the database file in field `db`. */
export const importDbBody = z.object({
  db: z
    .custom<File>((v) => v instanceof File, 'a database file is required')
    .meta({ type: 'string', format: 'binary', description: 'The database file (from /server/getDb)' }),
});

export const keyPairObj = z.object({ privateKey: z.string(), publicKey: z.string() });
export const mldsa65Obj = z.object({ privateKey: z.string(), publicKey: z.string(), seed: z.string() });
export const mlkem768Obj = z.object({ clientKey: z.string(), serverKey: z.string() });
export const vlessEncObj = z.object({
  auths: z.array(z.object({ id: z.number(), label: z.string(), encryption: z.string(), decryption: z.string() })),
});
export const echObj = z.object({
  echKeySet: z.string(),
  echServerKeys: z.array(z.string()),
  echConfigList: z.string(),
});
export const installCoreObj = z.object({
  version: z.string(),
  path: z.string(),
  restarted: z.boolean(),
  note: z.string().optional(),
});
export const panelUpdateInfoObj = z.object({
  currentVersion: z.string(),
  latestVersion: z.string(),
  updateAvailable: z.boolean(),
  selfUpdate: z.boolean(),
  message: z.string(),
  lastUpdate: z.unknown().describe('The outcome of the last update the launcher recorded, or null'),
});
export const panelUpdateObj = z.object({ from: z.string(), to: z.string() });
export const geoFilesObj = z.object({ updated: z.array(z.string()), restarted: z.boolean() });
export const importDbObj = z.object({
  backup: z.string(),
  tables: z.number(),
  rows: z.number(),
  format: z.enum(['panel', 'x-ui']).describe('`x-ui`: a 3x-ui database converted on the way in'),
  skipped: z.array(z.object({ what: z.string(), reason: z.string() })),
  converted: z.record(z.string(), z.number()),
  newAdminPassword: z
    .string()
    .optional()
    .describe('Set when the imported admin password could not be kept (shown once)'),
});
export const telegramBackupObj = z.object({ sent: z.array(z.string()) });
