// /panel/core outbound counters: getOutboundsTraffic and resetOutboundsTraffic (mounted next to handlers/core.ts).
import { ok } from './envelope.js';
import { createRoute, envelope, jsonBody, routes, z } from './route.js';
import { outboundTrafficObj, resetOutboundsBody } from '../domain/core/input.js';

const tags = ['core'];

export function coreTrafficRoutes() {
  return routes()
    .openapi(
      createRoute({
        method: 'get',
        path: '/getOutboundsTraffic',
        tags,
        summary: 'Counters of every outbound that moved traffic, by tag',
        responses: envelope(outboundTrafficObj),
      }),
      async (c) => ok(c, await c.var.services.traffic.outbounds()),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/resetOutboundsTraffic',
        tags,
        summary: 'Zero one outbound’s counters, or all (-alltags-)',
        request: { body: jsonBody(resetOutboundsBody) },
        responses: envelope(z.object({ affected: z.number() })),
      }),
      async (c) => {
        const { tag } = c.req.valid('json');
        const affected = await c.var.services.traffic.resetOutbounds(tag);
        return ok(c, { affected }, affected === 0 ? `no outbound counters for tag ${tag}` : 'outbound traffic reset');
      },
    );
}
