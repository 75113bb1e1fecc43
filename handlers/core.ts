// /panel/core/*: the core settings payload, the default template, getCoreResult, update (validated by a core
// test run), and testOutbound. (getOutboundsTraffic/resetOutboundsTraffic live with the traffic routes.)
// Schemas: domain/core/input.ts.
import type { AppContext } from './context.js';
import { ok } from './envelope.js';
import { createRoute, envelope, jsonBody, noObj, routes, z } from './route.js';
import { coreSettingsObj, coreUpdateBody, outboundProbeObj, testOutboundBody } from '../domain/core/input.js';

const tags = ['core'];

export function coreRoutes() {
  const payload = async (c: AppContext) => ok(c, await c.var.services.core.settingsPayload());
  const app = routes()
    .openapi(
      createRoute({
        method: 'post',
        path: '/',
        tags,
        summary: 'The core config template and the tags it may route to',
        responses: envelope(coreSettingsObj),
      }),
      payload,
    )

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

    .openapi(
      createRoute({
        method: 'get',
        path: '/getCoreResult',
        tags,
        summary: 'The core process’s latest output',
        responses: envelope(z.string()),
      }),
      (c) => ok(c, c.var.services.core.coreResult()),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/update',
        tags,
        summary: 'Save the core config template (tested by the core first)',
        request: { body: jsonBody(coreUpdateBody) },
        responses: envelope(noObj),
      }),
      async (c) => {
        const r = await c.var.services.core.updateSettings(c.req.valid('json'));
        const msg = r.tested
          ? r.restarted
            ? 'core settings saved; the core restarted on them'
            : 'core settings saved'
          : 'core settings saved (not tested: no core binary)';
        return ok(c, null, msg);
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/testOutbound',
        tags,
        summary: 'Probe one outbound through a temporary core',
        request: { body: jsonBody(testOutboundBody) },
        responses: envelope(outboundProbeObj),
      }),
      async (c) => ok(c, await c.var.services.core.testOutbound(c.req.valid('json'))),
    );
  // `/panel/core/` (with the slash) as existing clients call it: the same as the declared POST /panel/core.
  app.post('/:trailingSlash{/?}', payload);
  return app;
}
