// /panel/api/inbounds/*: inbounds, their projected clients, traffic resets, import, fallbacks.
// Schemas: domain/inbounds/input.ts (requests) and output.ts (the envelope's obj).
import type { AppContext } from './context.js';
import { ok, okJsonText } from './envelope.js';
import { createRoute, envelope, jsonBody, noObj, routes, z } from './route.js';
import { fallbacksBody, idParam, importBody, inboundInput, setEnableBody } from '../domain/inbounds/input.js';
import { fallbackRuleObj, inboundOptionObj, inboundViewObj } from '../domain/inbounds/output.js';

const tags = ['inbounds'];
const byId = { params: idParam };
const inboundBody = jsonBody(inboundInput, '`settings`, `streamSettings` and `sniffing` may be objects or JSON text', {
  remark: 'vless-tcp',
  enable: true,
  listen: '',
  port: 24443,
  protocol: 'vless',
  expiryTime: 0,
  total: 0,
  settings: { decryption: 'none' },
  streamSettings: { network: 'tcp', security: 'none' },
  sniffing: {},
});

export function inboundRoutes() {
  const svc = (c: AppContext) => c.var.services.inbounds;
  return routes()
    .openapi(
      createRoute({
        method: 'get',
        path: '/list',
        tags,
        summary: 'Every inbound with its projected clients and their counters',
        responses: envelope(z.array(inboundViewObj)),
      }),
      async (c) => ok(c, await svc(c).list(false)),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/list/slim',
        tags,
        summary: 'Every inbound without its clients’ secrets',
        responses: envelope(z.array(inboundViewObj)),
      }),
      async (c) => ok(c, await svc(c).list(true)),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/options',
        tags,
        summary: 'Inbounds for a picker: id, remark, protocol, port',
        responses: envelope(z.array(inboundOptionObj)),
      }),
      async (c) => ok(c, await svc(c).options()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/get/{id}',
        tags,
        summary: 'One inbound',
        request: byId,
        responses: envelope(inboundViewObj),
      }),
      async (c) => okJsonText(c, await svc(c).getJson(c.req.valid('param').id)) as never,
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/add',
        tags,
        summary: 'Create an inbound',
        request: { body: inboundBody },
        responses: envelope(inboundViewObj),
      }),
      async (c) => ok(c, await svc(c).add(c.req.valid('json')), 'inbound created'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/update/{id}',
        tags,
        summary: 'Replace an inbound (its clients stay attached)',
        request: { ...byId, body: inboundBody },
        responses: envelope(inboundViewObj),
      }),
      async (c) => ok(c, await svc(c).update(c.req.valid('param').id, c.req.valid('json')), 'inbound updated'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/del/{id}',
        tags,
        summary: 'Delete an inbound',
        request: byId,
        responses: envelope(z.object({ id: z.number() })),
      }),
      async (c) => {
        const { id } = c.req.valid('param');
        await svc(c).remove(id);
        return ok(c, { id }, 'inbound deleted');
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/setEnable/{id}',
        tags,
        summary: 'Enable or disable an inbound',
        request: { ...byId, body: jsonBody(setEnableBody) },
        responses: envelope(z.object({ id: z.number(), enable: z.boolean() })),
      }),
      async (c) => {
        const { id } = c.req.valid('param');
        const { enable } = c.req.valid('json');
        await svc(c).setEnable(id, enable);
        return ok(c, { id, enable }, enable ? 'inbound enabled' : 'inbound disabled');
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/{id}/resetTraffic',
        tags,
        summary: 'Zero an inbound’s counters',
        request: byId,
        responses: envelope(noObj),
      }),
      async (c) => {
        await svc(c).resetTraffic(c.req.valid('param').id);
        return ok(c, null, 'inbound traffic reset');
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/resetAllTraffics',
        tags,
        summary: 'Zero every inbound’s counters',
        responses: envelope(noObj),
      }),
      async (c) => {
        await svc(c).resetAllTraffics();
        return ok(c, null, 'all inbound traffic reset');
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/import',
        tags,
        summary: 'Create an inbound (and its clients) from an exported one',
        request: { body: jsonBody(importBody) },
        responses: envelope(inboundViewObj),
      }),
      async (c) => ok(c, await svc(c).import(c.req.valid('json').data), 'inbound imported'),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/{id}/fallbacks',
        tags,
        summary: 'An inbound’s fallback rules',
        request: byId,
        responses: envelope(z.array(fallbackRuleObj)),
      }),
      async (c) => ok(c, await svc(c).fallbacks(c.req.valid('param').id)),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/{id}/fallbacks',
        tags,
        summary: 'Replace an inbound’s fallback rules (the core restarts)',
        request: { ...byId, body: jsonBody(fallbacksBody) },
        responses: envelope(z.array(fallbackRuleObj)),
      }),
      async (c) =>
        ok(
          c,
          await svc(c).setFallbacks(c.req.valid('param').id, c.req.valid('json')),
          'fallbacks saved; the core restarts to apply them',
        ),
    );
}
