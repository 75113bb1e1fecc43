// The management response envelope `{success, msg, obj}` (DESIGN.md HTTP conventions).
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export interface Envelope<T = unknown> {
  success: boolean;
  msg: string;
  obj: T | null;
}

/** Typed (hono's TypedResponse) so a declared route's handler is checked against its documented `obj`. */
export const ok = <T = null>(c: Context, obj?: T, msg = '') =>
  c.json({ success: true as boolean, msg, obj: (obj === undefined ? null : obj) as T | null }, 200);

/** Business and validation failures answer HTTP 200 with success=false (what existing API clients expect). */
export const failure = (c: Context, msg: string, status: ContentfulStatusCode = 200): Response =>
  c.json({ success: false, msg, obj: null } satisfies Envelope, status);

/** A success envelope around `objJson`, JSON text the use case already produced (e.g. a 10 MB inbound). */
export const okJsonText = (c: Context, objJson: string, msg = ''): Response => {
  c.header('content-type', 'application/json');
  return c.body(`{"success":true,"msg":${JSON.stringify(msg)},"obj":${objJson}}`);
};
