// POST /login, POST /logout, GET /csrf-token, POST /getTwoFactorEnable. Schemas: domain/auth/input.ts.
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import type { AppContext } from './context.js';
import { ok } from './envelope.js';
import { createRoute, envelope, jsonBody, noObj, routes, z } from './route.js';
import { csrfOk, csrfRefused, requestClientIp, SESSION_COOKIE, sessionOf } from './auth.js';
import { loginBody } from '../domain/auth/input.js';
import { randomAlnum } from '../domain/shared/random.js';
import { DomainError } from '../domain/shared/errors.js';

export async function setSessionCookie(c: AppContext, token: string): Promise<void> {
  const { sessionMaxAge } = await c.var.services.settings.effective();
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: c.var.site.basePath,
    secure: c.var.site.secure,
    maxAge: sessionMaxAge * 60,
  });
}

/** The unauthenticated routes that read a body (the body limit is applied to them by path). */
export const SESSION_BODY_PATHS = ['/login', '/logout', '/getTwoFactorEnable'] as const;

const tags = ['session'];
const open: { security: [] } = { security: [] };

export function sessionRoutes() {
  return (
    routes({ publicRoutes: true })
      .openapi(
        createRoute({
          method: 'post',
          path: '/login',
          tags,
          ...open,
          summary: 'Log in: sets the session cookie',
          request: {
            body: jsonBody(loginBody, undefined, { username: 'admin', password: 'correct horse battery staple' }),
          },
          responses: envelope(noObj),
        }),
        async (c) => {
          const input = c.req.valid('json');
          const ip = await requestClientIp(c);
          try {
            const token = await c.var.services.auth.login({ ...input, ip });
            await setSessionCookie(c, token);
            c.var.site.logger?.info('login succeeded', { username: input.username, ip });
            return ok(c, null, 'logged in');
          } catch (err) {
            // The reason goes to the log only (never the password); the client sees one message whatever it was.
            if (err instanceof DomainError)
              c.var.site.logger?.warn('login failed', { username: input.username, ip, reason: err.code });
            throw err;
          }
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/logout',
          tags,
          ...open,
          summary: 'Log out: ends the session (a live session needs its X-CSRF-Token, else 403)',
          responses: envelope(noObj),
        }),
        async (c) => {
          // Another site must not sign the admin out: a live session needs its CSRF token here as on /panel/*.
          const claims = await sessionOf(c);
          if (claims && !(await csrfOk(c, claims))) throw new HTTPException(403, { res: csrfRefused(c) });
          await c.var.services.auth.logout(getCookie(c, SESSION_COOKIE));
          deleteCookie(c, SESSION_COOKIE, {
            path: c.var.site.basePath,
            httpOnly: true,
            sameSite: 'Lax',
            secure: c.var.site.secure,
          });
          return ok(c, null, 'logged out');
        },
      )

      // Bound to the session; without one the token is random (login itself needs no CSRF token).
      .openapi(
        createRoute({
          method: 'get',
          path: '/csrf-token',
          tags,
          ...open,
          summary: 'The session’s CSRF token (send it as X-CSRF-Token on unsafe methods)',
          responses: envelope(z.string()),
        }),
        async (c) => {
          const claims = await sessionOf(c);
          return ok(c, claims ? await c.var.services.auth.csrfToken(claims) : randomAlnum(43));
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/getTwoFactorEnable',
          tags,
          ...open,
          summary: 'Whether login asks for a TOTP code',
          responses: envelope(z.boolean()),
        }),
        async (c) => ok(c, await c.var.services.auth.twoFactorEnabled()),
      )
  );
}
