// POST /login, POST /logout, GET /csrf-token, POST /getTwoFactorEnable.
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppContext, AppEnv } from './context.js';
import { ok } from './envelope.js';
import { parseBody } from './input.js';
import { csrfOk, csrfRefused, requestClientIp, SESSION_COOKIE, sessionOf } from './auth.js';
import { randomAlnum } from '../domain/shared/random.js';
import { DomainError } from '../domain/shared/errors.js';

const loginBody = z.object({
  username: z.string().max(256),
  password: z.string().max(1024),
  twoFactorCode: z.string().max(16).optional(),
});

export async function setSessionCookie(c: AppContext, token: string): Promise<void> {
  const { sessionMaxAge } = await c.var.services.settings.effective();
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: c.var.deps.basePath,
    secure: c.var.deps.secure,
    maxAge: sessionMaxAge * 60,
  });
}

/** The unauthenticated routes that read a body (the body limit is applied to them by path). */
export const SESSION_BODY_PATHS = ['/login', '/logout', '/getTwoFactorEnable'] as const;

export function sessionRoutes() {
  const app = new Hono<AppEnv>();

  app.post('/login', async (c) => {
    const input = await parseBody(c, loginBody);
    const ip = await requestClientIp(c);
    try {
      const token = await c.var.services.auth.login({ ...input, ip });
      await setSessionCookie(c, token);
      c.var.deps.logger?.info('login succeeded', { username: input.username, ip });
      return ok(c, null, 'logged in');
    } catch (err) {
      // The reason goes to the log only (never the password); the client sees one message whatever it was.
      if (err instanceof DomainError) c.var.deps.logger?.warn('login failed', { username: input.username, ip, reason: err.code });
      throw err;
    }
  });

  app.post('/logout', async (c) => {
    // Another site must not sign the admin out: a live session needs its CSRF token here as on /panel/*.
    const claims = await sessionOf(c);
    if (claims && !(await csrfOk(c, claims))) return csrfRefused(c);
    await c.var.services.auth.logout(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: c.var.deps.basePath, httpOnly: true, sameSite: 'Lax', secure: c.var.deps.secure });
    return ok(c, null, 'logged out');
  });

  // Bound to the session; without one the token is random (login itself needs no CSRF token).
  app.get('/csrf-token', async (c) => {
    const claims = await sessionOf(c);
    return ok(c, claims ? await c.var.services.auth.csrfToken(claims) : randomAlnum(43));
  });

  app.post('/getTwoFactorEnable', async (c) => ok(c, await c.var.services.auth.twoFactorEnabled()));

  return app;
}
