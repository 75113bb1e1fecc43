// /panel/api/custom-geo/*: custom geoip/geosite sources, their aliases, downloads.
// Schemas: domain/geo/model.ts (requests) and output.ts (the envelope's obj).
import type { AppContext } from './context.js';
import { ok } from './envelope.js';
import { createRoute, envelope, jsonBody, routes, z } from './route.js';
import { geoInput } from '../domain/geo/model.js';
import { geoAliasesObj, geoRemovedObj, geoUpdateAllObj, geoViewObj } from '../domain/geo/output.js';
import { idParam } from '../domain/shared/input.js';

const tags = ['custom geo'];
const byId = { params: idParam };

export function customGeoRoutes() {
  const svc = (c: AppContext) => c.var.services.geo;
  return routes()
    .openapi(
      createRoute({
        method: 'get',
        path: '/list',
        tags,
        summary: 'Every custom geo source',
        responses: envelope(z.array(geoViewObj)),
      }),
      async (c) => ok(c, await svc(c).list()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/aliases',
        tags,
        summary: 'Built-in and custom geo files usable in routing rules',
        responses: envelope(geoAliasesObj),
      }),
      async (c) => ok(c, await svc(c).aliases()),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/add',
        tags,
        summary: 'Add a source and download it',
        request: { body: jsonBody(geoInput) },
        responses: envelope(geoViewObj),
      }),
      async (c) => ok(c, await svc(c).add(c.req.valid('json')), 'custom geo source added and downloaded'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/update/{id}',
        tags,
        summary: 'Change a source',
        request: { ...byId, body: jsonBody(geoInput) },
        responses: envelope(geoViewObj),
      }),
      async (c) =>
        ok(c, await svc(c).update(c.req.valid('param').id, c.req.valid('json')), 'custom geo source updated'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/delete/{id}',
        tags,
        summary: 'Delete a source and its file',
        request: byId,
        responses: envelope(geoRemovedObj),
      }),
      async (c) => ok(c, await svc(c).remove(c.req.valid('param').id), 'custom geo source deleted'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/download/{id}',
        tags,
        summary: 'Download a source again',
        request: byId,
        responses: envelope(geoViewObj),
      }),
      async (c) => ok(c, await svc(c).download(c.req.valid('param').id), 'custom geo source downloaded'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/update-all',
        tags,
        summary: 'Download every source again',
        responses: envelope(geoUpdateAllObj),
      }),
      async (c) => {
        const res = await svc(c).updateAll();
        const msg = res.failed.length
          ? `${res.succeeded.length} updated, ${res.failed.length} failed`
          : `${res.succeeded.length} updated`;
        return ok(c, res, msg);
      },
    );
}
