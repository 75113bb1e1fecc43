// /panel/setting/*: the settings blob, the admin credential, panel restart, and API tokens.
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { parseBody, parseParams, rawBody, InputError } from './input.js';
import { setSessionCookie } from './session.js';
import { defaultTemplate } from '../domain/core/template.js';

const DEFAULT_CORE_API_PORT = 62789;

const idParam = z.object({ id: z.coerce.number().int().positive('must be a positive integer') });
const boolish = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

const updateUserBody = z.object({
  oldUsername: z.string().max(256),
  oldPassword: z.string().max(1024),
  newUsername: z.string().min(1, 'must not be empty').max(256),
  newPassword: z.string().min(1, 'must not be empty').max(1024),
});

export const RESTART_GRACE_MS = 3000;

export function settingsRoutes() {
  const app = new Hono<AppEnv>();

  app.post('/all', async (c) => ok(c, await c.var.services.settings.effective()));

  app.post('/defaultSettings', async (c) => {
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
  });

  app.post('/update', async (c) => {
    const body = await rawBody(c);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new InputError('body: must be a settings object');
    const { settings, changed } = await c.var.services.settings.update(body as Record<string, unknown>);
    return ok(c, settings, changed.length ? `settings saved (${changed.join(', ')}); port and path changes apply after /restartPanel` : 'nothing changed');
  });

  app.post('/updateUser', async (c) => {
    const input = await parseBody(c, updateUserBody);
    const principal = c.var.principal;
    const token = await c.var.services.auth.updateUser(principal.kind === 'session' ? principal.claims.uid : undefined, input);
    if (principal.kind === 'session') await setSessionCookie(c, token);
    return ok(c, null, 'credential updated; other sessions were signed out');
  });

  app.post('/restartPanel', (c) => {
    c.var.services.deps.panel.requestRestart(RESTART_GRACE_MS);
    return ok(c, null, `the panel restarts in ${RESTART_GRACE_MS / 1000} seconds`);
  });

  // The built-in core config template (the same as /panel/core/getDefaultJsonConfig).
  app.get('/getDefaultJsonConfig', (c) => ok(c, defaultTemplate(c.var.services.deps.runtime.coreApiPort ?? DEFAULT_CORE_API_PORT)));

  // API tokens
  app.get('/apiTokens', async (c) => ok(c, await c.var.services.tokens.list()));
  app.post('/apiTokens/create', async (c) => {
    const { name } = await parseBody(c, z.object({ name: z.string() }));
    return ok(c, await c.var.services.tokens.create(name), 'token created');
  });
  app.post('/apiTokens/delete/:id', async (c) => {
    await c.var.services.tokens.remove(parseParams(c, idParam).id);
    return ok(c, null, 'token deleted');
  });
  app.post('/apiTokens/setEnabled/:id', async (c) => {
    const { id } = parseParams(c, idParam);
    const { enabled } = await parseBody(c, z.object({ enabled: boolish }));
    await c.var.services.tokens.setEnabled(id, enabled);
    return ok(c, null, enabled ? 'token enabled' : 'token disabled');
  });

  return app;
}
