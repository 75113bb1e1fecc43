// GET /panel/api/clients/links/:email and /subLinks/:subId: share links for the panel, built for the host the
// operator's browser addressed (forwarded headers only from trusted proxies).
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { parseParams } from './input.js';
import { requestView } from './forwarded.js';
import { DomainError } from '../domain/shared/errors.js';

const emailParam = z.object({ email: z.string().min(1, 'email is required') });
const subIdParam = z.object({ subId: z.string().min(1, 'subId is required') });

export function clientLinksRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.get('/links/:email', async (c) => {
    const { email } = parseParams(c, emailParam);
    const s = await c.var.services.settings.effective();
    const links = await c.var.services.subscriptions.linksByEmail(email, requestView(c, c.var.deps.clientIp(c), s.trustedProxyCIDRs));
    if (links === null) throw new DomainError(`client ${email} not found`);
    return ok(c, links);
  });
  r.get('/subLinks/:subId', async (c) => {
    const { subId } = parseParams(c, subIdParam);
    const s = await c.var.services.settings.effective();
    return ok(c, await c.var.services.subscriptions.linksBySubId(subId, requestView(c, c.var.deps.clientIp(c), s.trustedProxyCIDRs)));
  });
  return r;
}
