// Authentication for /panel/*: a session cookie (with X-CSRF-Token on unsafe methods) or a Bearer API token.
import { getCookie } from 'hono/cookie';
import type { MiddlewareHandler } from 'hono';
import type { AppContext, AppEnv } from './context.js';

export const SESSION_COOKIE = 'panel_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The answer to an unauthenticated request: 404 with an empty body, or 401 with the envelope for XHR. */
export function unauthenticated(c: AppContext): Response {
  if (c.req.header('x-requested-with')?.toLowerCase() === 'xmlhttprequest') {
    return c.json({ success: false, msg: 'unauthorized: log in again', obj: null }, 401);
  }
  return c.body(null, 404);
}

export function bearerToken(c: AppContext): string | undefined {
  const h = c.req.header('authorization');
  const m = h && /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/**
 * The client address of the request: the socket peer, or the forwarded address when the peer is inside
 * `trustedProxyCIDRs` (X-Forwarded-For, else X-Real-IP).
 */
export function requestClientIp(c: AppContext): Promise<string> {
  return c.var.services.auth.clientIp(c.var.site.clientIp(c), {
    forwardedFor: c.req.header('x-forwarded-for'),
    realIp: c.req.header('x-real-ip'),
  });
}

/** Loads the session from the cookie, if any (without requiring it). */
export async function sessionOf(c: AppContext) {
  return c.var.services.auth.session(getCookie(c, SESSION_COOKIE));
}

type Claims = NonNullable<Awaited<ReturnType<typeof sessionOf>>>;

/** Safe methods pass; an unsafe one needs the session's X-CSRF-Token. */
export async function csrfOk(c: AppContext, claims: Claims): Promise<boolean> {
  return SAFE_METHODS.has(c.req.method) || c.var.services.auth.checkCsrf(claims, c.req.header('x-csrf-token'));
}

export const csrfRefused = (c: AppContext): Response =>
  c.json(
    { success: false, msg: 'CSRF token missing or invalid: send X-CSRF-Token from GET /csrf-token', obj: null },
    403,
  );

export const requireAuth =
  (opts: { allowBearer: boolean } = { allowBearer: true }): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const token = bearerToken(c);
    if (token !== undefined) {
      if (!opts.allowBearer || !(await c.var.services.tokens.authenticate(token))) return unauthenticated(c);
      c.set('principal', { kind: 'bearer' });
      return next();
    }
    const claims = await sessionOf(c);
    if (!claims) return unauthenticated(c);
    if (!(await csrfOk(c, claims))) return csrfRefused(c);
    c.set('principal', { kind: 'session', claims });
    return next();
  };
