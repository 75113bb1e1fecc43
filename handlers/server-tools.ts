// /panel/api/server tools (keys, core versions and install, geo files, logs, database download and import,
// panel update) and /panel/api/backuptotgbot. Mounted at /panel/api. Schemas: domain/server-tools/input.ts.
import type { AppContext } from './context.js';
import { bodyLimit } from 'hono/body-limit';
import { failure, ok } from './envelope.js';
import { InputError } from './input.js';
import { createRoute, envelope, jsonBody, routes, z } from './route.js';
import {
  coreLogsBody,
  countParam,
  echBody,
  echObj,
  geoFileBody,
  geoFileParam,
  geoFilesObj,
  importDbBody,
  importDbObj,
  installCoreObj,
  keyPairObj,
  logsBody,
  mldsa65Obj,
  mlkem768Obj,
  panelUpdateInfoObj,
  panelUpdateObj,
  telegramBackupObj,
  versionParam,
  vlessEncObj,
} from '../domain/server-tools/input.js';

const tags = ['server'];

/** importDB's own body limit (the rest of the API keeps 10 MiB): a backup of 100,000 clients is about 60 MiB. */
export const DB_UPLOAD_LIMIT_BYTES = 256 * 1024 * 1024;

export function serverToolsRoutes() {
  const tools = (c: AppContext) => c.var.services.serverTools;
  const geo = async (c: AppContext, fileName: string | undefined) => {
    const r = await tools(c).updateGeoFiles(fileName);
    return ok(c, r, `updated ${r.updated.join(', ')}${r.restarted ? '; core restarted' : ''}`);
  };

  return routes()
    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getNewUUID',
        tags,
        summary: 'A random UUID v4',
        responses: envelope(z.string()),
      }),
      (c) => ok(c, tools(c).newUuid()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getNewX25519Cert',
        tags,
        summary: 'An X25519 key pair (REALITY)',
        responses: envelope(keyPairObj),
      }),
      async (c) => ok(c, await tools(c).newX25519()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getNewmldsa65',
        tags,
        summary: 'An ML-DSA-65 key pair',
        responses: envelope(mldsa65Obj),
      }),
      (c) => ok(c, tools(c).newMldsa65()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getNewmlkem768',
        tags,
        summary: 'An ML-KEM-768 key pair',
        responses: envelope(mlkem768Obj),
      }),
      (c) => ok(c, tools(c).newMlkem768()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getNewVlessEnc',
        tags,
        summary: 'VLESS encryption/decryption pairs',
        responses: envelope(vlessEncObj),
      }),
      async (c) => ok(c, await tools(c).newVlessEnc()),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/getNewEchCert',
        tags,
        summary: 'An ECH key set and config list for an SNI',
        request: { body: jsonBody(echBody) },
        responses: envelope(echObj),
      }),
      async (c) => ok(c, await tools(c).newEch(c.req.valid('json').sni)),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getCoreVersion',
        tags,
        summary: 'Installable core versions, newest first',
        responses: envelope(z.array(z.string())),
      }),
      async (c) => ok(c, await tools(c).coreVersions()),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/installCore/{version}',
        tags,
        summary: 'Download, verify and install a core version',
        request: { params: versionParam },
        responses: envelope(installCoreObj),
      }),
      async (c) => {
        const r = await tools(c).installCore(c.req.valid('param').version);
        return ok(
          c,
          r,
          r.restarted
            ? `core ${r.version} installed and restarted`
            : `core ${r.version} installed${r.note ? `; ${r.note}` : ''}`,
        );
      },
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getPanelUpdateInfo',
        tags,
        summary: 'The running version against the newest release',
        responses: envelope(panelUpdateInfoObj),
      }),
      async (c) => ok(c, await tools(c).panelUpdateInfo()),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/updatePanel',
        tags,
        summary: 'Update to the newest release (verified, migrations checked; rolled back when not healthy in 60 s)',
        responses: envelope(panelUpdateObj),
      }),
      async (c) => {
        const r = await tools(c).updatePanel();
        return ok(
          c,
          r,
          `updating ${r.from} to ${r.to}: the panel restarts now and returns to ${r.from} by itself if ${r.to} is not healthy within 60 s`,
        );
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/updateGeofile',
        tags,
        summary: 'Download the geo files again (one, or all)',
        request: { body: jsonBody(geoFileBody) },
        responses: envelope(geoFilesObj),
      }),
      async (c) => geo(c, c.req.valid('json').fileName),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/updateGeofile/{fileName}',
        tags,
        summary: 'Download one geo file again',
        request: { params: geoFileParam },
        responses: envelope(geoFilesObj),
      }),
      async (c) => geo(c, c.req.valid('param').fileName),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/logs/{count}',
        tags,
        summary: 'The panel’s latest log lines',
        request: { params: countParam, body: jsonBody(logsBody) },
        responses: envelope(z.string()),
      }),
      async (c) => {
        const body = c.req.valid('json');
        const r = await tools(c).panelLogsFrom(
          c.req.valid('param').count,
          body.level,
          body.syslog === true || body.syslog === 'true',
        );
        return ok(c, r.text, r.note);
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/corelogs/{count}',
        tags,
        summary: 'The core’s latest log lines, filtered',
        request: { params: countParam, body: jsonBody(coreLogsBody) },
        responses: envelope(z.string()),
      }),
      async (c) => ok(c, await tools(c).coreLogs(c.req.valid('param').count, c.req.valid('json'))),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/server/getDb',
        tags,
        summary: 'Download the database (a consistent copy)',
        responses: {
          200: {
            description: 'The database file',
            content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
          },
        },
      }),
      async (c) => {
        const { fileName, data } = await tools(c).databaseFile();
        return c.body(data as Uint8Array<ArrayBuffer>, 200, {
          'content-type': 'application/octet-stream',
          'content-disposition': `attachment; filename="${fileName}"`,
          'content-length': String(data.length),
          'cache-control': 'no-store',
        }) as never;
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/server/importDB',
        tags,
        summary: 'Replace the database with an uploaded one (the panel restarts)',
        request: { body: { required: true, content: { 'multipart/form-data': { schema: importDbBody } } } },
        responses: envelope(importDbObj),
        middleware: [
          bodyLimit({
            maxSize: DB_UPLOAD_LIMIT_BYTES,
            onError: (c) =>
              failure(
                c,
                `db: the upload is larger than the limit of ${DB_UPLOAD_LIMIT_BYTES / 1024 / 1024} MiB; ` +
                  'import a larger file on the host with `panel db import FILE`',
                413,
              ),
          }),
          async (c, next) => {
            if (!/multipart\/form-data/i.test(c.req.header('content-type') ?? '')) {
              throw new InputError('db: upload the database as multipart/form-data field "db"');
            }
            await next();
          },
        ] as const,
      }),
      async (c) => {
        const r = await tools(c).importDatabase(new Uint8Array(await c.req.valid('form').db.arrayBuffer()));
        const from =
          r.format === 'x-ui' ? ` from 3x-ui (${r.skipped.length} item(s) not converted, listed in skipped)` : '';
        const pw = r.newAdminPassword ? `; the admin password was reset to ${r.newAdminPassword} (shown once)` : '';
        return ok(
          c,
          r,
          `database imported${from} (${r.rows} rows); the previous one is kept at ${r.backup}${pw}; the panel restarts in 3 seconds`,
        );
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/backuptotgbot',
        tags,
        summary: 'Send a database backup to the Telegram admins',
        responses: envelope(telegramBackupObj),
      }),
      async (c) => {
        const r = await tools(c).backupToTelegram();
        return ok(c, r, `backup sent to ${r.sent.length} chat(s)`);
      },
    );
}
