// GET /panel/api/clients/links/:email and /subLinks/:subId: share links for the panel, built for the host the
// operator's browser addressed (forwarded headers only from trusted proxies).
import { ok } from './envelope.js';
import { createRoute, envelope, routes, z } from './route.js';
import { requestView } from './forwarded.js';
import { DomainError } from '../domain/shared/errors.js';
import { linksEmailParam, subIdParam } from '../domain/subscription/input.js';

const tags = ['clients'];

export function clientLinksRoutes() {
  return routes()
    .openapi(
      createRoute({
        method: 'get',
        path: '/links/{email}',
        tags,
        summary: 'A client’s share links (one per inbound)',
        request: { params: linksEmailParam },
        responses: envelope(z.array(z.string())),
      }),
      async (c) => {
        const { email } = c.req.valid('param');
        const s = await c.var.services.settings.effective();
        const view = requestView(c, c.var.site.clientIp(c), s.trustedProxyCIDRs);
        const links = await c.var.services.subscriptions.linksByEmail(email, view);
        if (links === null) throw new DomainError(`client ${email} not found`);
        return ok(c, links);
      },
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/subLinks/{subId}',
        tags,
        summary: 'The share links of every client of a subscription',
        request: { params: subIdParam },
        responses: envelope(z.array(z.string())),
      }),
      async (c) => {
        const { subId } = c.req.valid('param');
        const s = await c.var.services.settings.effective();
        const view = requestView(c, c.var.site.clientIp(c), s.trustedProxyCIDRs);
        return ok(c, await c.var.services.subscriptions.linksBySubId(subId, view));
      },
    );
}
