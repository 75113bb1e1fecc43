// /panel/api/nodes/*: remote panels — CRUD, pause/resume, probes (saved or not) and per-node cpu/mem history.
// Schemas: domain/nodes/model.ts (requests) and output.ts (the envelope's obj).
import type { AppContext } from './context.js';
import { ok } from './envelope.js';
import { createRoute, envelope, jsonBody, noObj, routes, z } from './route.js';
import { nodeInput, nodeTestInput, setEnableInput } from '../domain/nodes/model.js';
import { historyObj, nodeHistoryParams, nodeViewObj, probeResultObj } from '../domain/nodes/output.js';
import { idParam } from '../domain/shared/input.js';

const tags = ['nodes'];
const byId = { params: idParam };

export function nodeRoutes() {
  const svc = (c: AppContext) => c.var.services.nodes;
  return routes()
    .openapi(
      createRoute({
        method: 'get',
        path: '/list',
        tags,
        summary: 'Every node with its health and rollups',
        responses: envelope(z.array(nodeViewObj)),
      }),
      async (c) => ok(c, await svc(c).list()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/get/{id}',
        tags,
        summary: 'One node',
        request: byId,
        responses: envelope(nodeViewObj),
      }),
      async (c) => ok(c, await svc(c).get(c.req.valid('param').id)),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/add',
        tags,
        summary: 'Add a node (a remote panel reached with its API token)',
        request: { body: jsonBody(nodeInput) },
        responses: envelope(nodeViewObj),
      }),
      async (c) => ok(c, await svc(c).add(c.req.valid('json')), 'node added'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/update/{id}',
        tags,
        summary: 'Change a node (an omitted or empty apiToken keeps the stored one)',
        request: { ...byId, body: jsonBody(nodeInput) },
        responses: envelope(nodeViewObj),
      }),
      async (c) => ok(c, await svc(c).update(c.req.valid('param').id, c.req.valid('json')), 'node updated'),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/del/{id}',
        tags,
        summary: 'Delete a node',
        request: byId,
        responses: envelope(noObj),
      }),
      async (c) => {
        await svc(c).remove(c.req.valid('param').id);
        return ok(c, null, 'node deleted; inbounds bound to it were not migrated');
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/setEnable/{id}',
        tags,
        summary: 'Pause or resume a node',
        request: { ...byId, body: jsonBody(setEnableInput) },
        responses: envelope(noObj),
      }),
      async (c) => {
        const { enable } = c.req.valid('json');
        await svc(c).setEnable(c.req.valid('param').id, enable);
        return ok(c, null, enable ? 'node enabled' : 'node paused');
      },
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/test',
        tags,
        summary: 'Probe connection details without saving them',
        request: { body: jsonBody(nodeTestInput) },
        responses: envelope(probeResultObj),
      }),
      async (c) => ok(c, await svc(c).test(c.req.valid('json'))),
    )

    .openapi(
      createRoute({
        method: 'post',
        path: '/probe/{id}',
        tags,
        summary: 'Probe a saved node now',
        request: byId,
        responses: envelope(probeResultObj),
      }),
      async (c) => ok(c, await svc(c).probe(c.req.valid('param').id)),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/history/{id}/{metric}/{bucket}',
        tags,
        summary: 'A node’s cpu or mem history',
        request: { params: nodeHistoryParams },
        responses: envelope(historyObj),
      }),
      async (c) => {
        const p = c.req.valid('param');
        return ok(c, await svc(c).history(p.id, p.metric, p.bucket));
      },
    );
}
