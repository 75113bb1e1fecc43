// /panel/setting/*: the settings blob, the admin credential, panel restart, and API tokens.
// Schemas: domain/settings/schema.ts, domain/auth/input.ts, domain/tokens/service.ts.
import { ok } from './envelope.js';
import { createRoute, envelope, jsonBody, noObj, routes, z } from './route.js';
import { setSessionCookie } from './session.js';
import { settingsObj, settingsPatchBody } from '../domain/settings/schema.js';
import { twoFactorDisableBody, twoFactorEnableBody, updateUserBody } from '../domain/auth/input.js';
import { setEnabledBody, tokenNameBody } from '../domain/tokens/input.js';
import { apiTokenObj } from '../domain/tokens/output.js';
import { idParam } from '../domain/shared/input.js';

const tags = ['settings'];

export function settingsRoutes() {
  return (
    routes()
      .openapi(
        createRoute({
          method: 'post',
          path: '/all',
          tags,
          summary: 'The effective settings',
          responses: envelope(settingsObj),
        }),
        async (c) => ok(c, await c.var.services.settings.effective()),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/defaultSettings',
          tags,
          summary: 'The effective settings plus the subscription URLs',
          responses: envelope(
            settingsObj.extend({ subURI: z.string(), subJsonURI: z.string(), subClashURI: z.string() }),
          ),
        }),
        async (c) => {
          const s = await c.var.services.settings.effective();
          const host = (c.req.header('host') ?? 'localhost').replace(/:\d+$/, '') || 'localhost';
          const scheme = s.subCertFile ? 'https' : 'http';
          const origin = `${scheme}://${s.subDomain || host}:${s.subPort}`;
          return ok(c, {
            ...s,
            subURI: s.subURI || `${origin}${s.subPath}`,
            subJsonURI: `${origin}${s.subJsonPath}`,
            subClashURI: `${origin}${s.subClashPath}`,
          });
        },
      )

      // Beyond the spec (docs/api.md): which keys the environment overrides, so the UI can say that saving them
      // changes nothing while the variable is set.
      .openapi(
        createRoute({
          method: 'get',
          path: '/overridden',
          tags,
          summary: 'The setting keys an environment variable overrides',
          responses: envelope(z.array(z.string())),
        }),
        (c) => ok(c, c.var.services.settings.overriddenKeys()),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/update',
          tags,
          summary: 'Change some settings (only the keys sent)',
          request: { body: jsonBody(settingsPatchBody, undefined, { subTitle: 'My VPN', subEnable: true }) },
          responses: envelope(settingsObj),
        }),
        async (c) => {
          const { settings, changed } = await c.var.services.settings.update(c.req.valid('json'));
          return ok(
            c,
            settings,
            changed.length
              ? `settings saved (${changed.join(', ')}); port and path changes apply after /restartPanel`
              : 'nothing changed',
          );
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/updateUser',
          tags,
          summary: 'Change the admin credential (other sessions end)',
          request: { body: jsonBody(updateUserBody) },
          responses: envelope(noObj),
        }),
        async (c) => {
          const principal = c.var.principal;
          const token = await c.var.services.auth.updateUser(
            principal.kind === 'session' ? principal.claims.uid : undefined,
            c.req.valid('json'),
          );
          if (principal.kind === 'session') await setSessionCookie(c, token);
          return ok(c, null, 'credential updated; other sessions were signed out');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/restartPanel',
          tags,
          summary: 'Restart the panel after a short grace period',
          responses: envelope(noObj),
        }),
        (c) => ok(c, null, `the panel restarts in ${c.var.services.serverTools.restartPanel().inSeconds} seconds`),
      )

      // Two-factor enrolment (beyond the spec, docs/api.md): the code is checked here, never only in the browser.
      .openapi(
        createRoute({
          method: 'post',
          path: '/twoFactor/enable',
          tags,
          summary: 'Turn two-factor login on with a new TOTP secret, once a code from it is right',
          request: {
            body: jsonBody(
              twoFactorEnableBody,
              'A new base32 secret and the 6-digit code an authenticator app shows for it',
            ),
          },
          responses: envelope(noObj),
        }),
        async (c) => {
          const { secret, code } = c.req.valid('json');
          await c.var.services.auth.enableTwoFactor(secret, code);
          return ok(c, null, 'two-factor login is on');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/twoFactor/disable',
          tags,
          summary: 'Turn two-factor login off, once a code of the current secret is right',
          request: { body: jsonBody(twoFactorDisableBody, 'The 6-digit code of the stored secret') },
          responses: envelope(noObj),
        }),
        async (c) => {
          await c.var.services.auth.disableTwoFactor(c.req.valid('json').code);
          return ok(c, null, 'two-factor login is off');
        },
      )

      // The built-in core config template (the same as /panel/core/getDefaultJsonConfig).
      .openapi(
        createRoute({
          method: 'get',
          path: '/getDefaultJsonConfig',
          tags,
          summary: 'The built-in core config template',
          responses: envelope(z.record(z.string(), z.unknown())),
        }),
        (c) => ok(c, c.var.services.core.defaultTemplate()),
      )

      // API tokens
      .openapi(
        createRoute({
          method: 'get',
          path: '/apiTokens',
          tags: ['tokens'],
          summary: 'Every API token',
          responses: envelope(z.array(apiTokenObj)),
        }),
        async (c) => ok(c, await c.var.services.tokens.list()),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/apiTokens/create',
          tags: ['tokens'],
          summary: 'Create an API token (returned once here)',
          request: { body: jsonBody(tokenNameBody, undefined, { name: 'ci' }) },
          responses: envelope(apiTokenObj),
        }),
        async (c) => ok(c, await c.var.services.tokens.create(c.req.valid('json').name), 'token created'),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/apiTokens/delete/{id}',
          tags: ['tokens'],
          summary: 'Delete an API token',
          request: { params: idParam },
          responses: envelope(noObj),
        }),
        async (c) => {
          await c.var.services.tokens.remove(c.req.valid('param').id);
          return ok(c, null, 'token deleted');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/apiTokens/setEnabled/{id}',
          tags: ['tokens'],
          summary: 'Enable or disable an API token',
          request: { params: idParam, body: jsonBody(setEnabledBody) },
          responses: envelope(noObj),
        }),
        async (c) => {
          const { enabled } = c.req.valid('json');
          await c.var.services.tokens.setEnabled(c.req.valid('param').id, enabled);
          return ok(c, null, enabled ? 'token enabled' : 'token disabled');
        },
      )
  );
}
