// /panel/api/server tools (keys, core versions and install, geo files, logs, database download and import,
// panel update) and /panel/api/backuptotgbot. Mounted at /panel/api.
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext, AppEnv } from './context.js';
import { bodyLimit } from 'hono/body-limit';
import { failure, ok } from './envelope.js';
import { InputError, parseBody, parseParams, rawBody } from './input.js';

/** importDB's own body limit (the rest of the API keeps 10 MiB): a backup of 100,000 clients is about 60 MiB. */
export const DB_UPLOAD_LIMIT_BYTES = 256 * 1024 * 1024;

const countParam = z.object({
  count: z.string().regex(/^\d{1,6}$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1, 'must be at least 1').max(10_000, 'must be at most 10000')),
});

/** `true`/`false` as booleans or strings (form fields are strings). */
const flag = z.union([z.boolean(), z.string()]).optional().transform((v) => v === true || v === 'true');

const logsBody = z.object({
  level: z.string().max(16).optional().default('info'),
  syslog: z.union([z.boolean(), z.string()]).optional(),
});

const coreLogsBody = z.object({
  filter: z.string().max(200).optional().default(''),
  showDirect: flag,
  showBlocked: flag,
  showProxy: flag,
});

const echBody = z.object({ sni: z.string({ error: 'is required' }).max(253) });
const geoBody = z.object({ fileName: z.string().max(64).optional() });
const geoParam = z.object({ fileName: z.string().max(64) });
const versionParam = z.object({ version: z.string().max(32) });

export function serverToolsRoutes() {
  const app = new Hono<AppEnv>();
  const tools = (c: { var: AppEnv['Variables'] }) => c.var.services.serverTools;

  app.get('/server/getNewUUID', (c) => ok(c, tools(c).newUuid()));
  app.get('/server/getNewX25519Cert', async (c) => ok(c, await tools(c).newX25519()));
  app.get('/server/getNewmldsa65', (c) => ok(c, tools(c).newMldsa65()));
  app.get('/server/getNewmlkem768', (c) => ok(c, tools(c).newMlkem768()));
  app.get('/server/getNewVlessEnc', async (c) => ok(c, await tools(c).newVlessEnc()));
  app.post('/server/getNewEchCert', async (c) => {
    const { sni } = await parseBody(c, echBody);
    return ok(c, await tools(c).newEch(sni));
  });

  app.get('/server/getCoreVersion', async (c) => ok(c, await tools(c).coreVersions()));
  app.post('/server/installCore/:version', async (c) => {
    const { version } = parseParams(c, versionParam);
    const r = await tools(c).installCore(version);
    return ok(c, r, r.restarted ? `core ${r.version} installed and restarted` : `core ${r.version} installed${r.note ? `; ${r.note}` : ''}`);
  });

  app.get('/server/getPanelUpdateInfo', (c) => ok(c, tools(c).panelUpdateInfo()));
  app.post('/server/updatePanel', (c) => tools(c).updatePanel());

  const geo = async (c: AppContext, fileName: string | undefined) => {
    const r = await tools(c).updateGeoFiles(fileName);
    return ok(c, r, `updated ${r.updated.join(', ')}${r.restarted ? '; core restarted' : ''}`);
  };
  app.post('/server/updateGeofile', async (c) => geo(c as AppContext, (await parseBody(c, geoBody)).fileName));
  app.post('/server/updateGeofile/:fileName', async (c) => geo(c as AppContext, parseParams(c, geoParam).fileName));

  app.post('/server/logs/:count', async (c) => {
    const { count } = parseParams(c, countParam);
    const body = await parseBody(c, logsBody);
    return ok(c, tools(c).panelLogs(count, body.level));
  });
  app.post('/server/corelogs/:count', async (c) => {
    const { count } = parseParams(c, countParam);
    const body = await parseBody(c, coreLogsBody);
    return ok(c, await tools(c).coreLogs(count, body));
  });

  app.get('/server/getDb', async (c) => {
    const { fileName, data } = await tools(c).databaseFile();
    return c.body(data as Uint8Array<ArrayBuffer>, 200, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${fileName}"`,
      'content-length': String(data.length),
      'cache-control': 'no-store',
    });
  });

  app.post('/server/importDB', bodyLimit({
    maxSize: DB_UPLOAD_LIMIT_BYTES,
    onError: (c) => failure(c, `db: the upload is larger than the limit of ${DB_UPLOAD_LIMIT_BYTES / 1024 / 1024} MiB; import a larger file on the host with \`panel db import FILE\``, 413),
  }), async (c) => {
    if (!/multipart\/form-data/i.test(c.req.header('content-type') ?? '')) throw new InputError('db: upload the database as multipart/form-data field "db"');
    const form = (await rawBody(c)) as Record<string, unknown>;
    const file = form.db;
    if (!(file instanceof File)) throw new InputError('db: a database file is required');
    const r = await tools(c).importDatabase(new Uint8Array(await file.arrayBuffer()));
    const from = r.format === 'x-ui' ? ` from 3x-ui (${r.skipped.length} item(s) not converted, listed in skipped)` : '';
    const pw = r.newAdminPassword ? `; the admin password was reset to ${r.newAdminPassword} (shown once)` : '';
    return ok(c, r, `database imported${from} (${r.rows} rows); the previous one is kept at ${r.backup}${pw}; the panel restarts in 3 seconds`);
  });

  app.post('/backuptotgbot', async (c) => {
    const r = await tools(c).backupToTelegram();
    return ok(c, r, `backup sent to ${r.sent.length} chat(s)`);
  });

  return app;
}
