// /panel/api/server: the status snapshot, host history, core metrics and observatory. Every answer is read from
// what the background sampler cached; no request triggers a reading. Schemas: domain/status/output.ts.
import { ok } from './envelope.js';
import { createRoute, envelope, routes } from './route.js';
import { coreMetricsStateObj, historySamplesObj, observatoryObj, statusObj } from '../domain/status/output.js';
import { coreMetricParams, cpuHistoryParams, historyParams, observatoryHistoryParams } from '../domain/status/input.js';

const tags = ['server'];

export function serverStatusRoutes() {
  return routes()
    .openapi(
      createRoute({
        method: 'get',
        path: '/status',
        tags,
        summary: 'Host and core status (sampled every 2 s)',
        responses: envelope(statusObj),
      }),
      (c) => ok(c, c.var.services.status.snapshot()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/cpuHistory/{bucket}',
        tags,
        summary: 'CPU history (legacy alias of /history/cpu/{bucket})',
        request: { params: cpuHistoryParams },
        responses: envelope(historySamplesObj),
      }),
      (c) => ok(c, c.var.services.status.history('cpu', c.req.valid('param').bucket)),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/history/{metric}/{bucket}',
        tags,
        summary: 'A host metric’s history in buckets of seconds',
        request: { params: historyParams },
        responses: envelope(historySamplesObj),
      }),
      (c) => {
        const p = c.req.valid('param');
        return ok(c, c.var.services.status.history(p.metric, p.bucket));
      },
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/coreMetricsState',
        tags,
        summary: 'Whether the core’s metrics endpoint is read, and its values',
        responses: envelope(coreMetricsStateObj),
      }),
      (c) => ok(c, c.var.services.status.coreMetricsState()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/coreMetricsHistory/{metric}/{bucket}',
        tags,
        summary: 'A core metric’s history',
        request: { params: coreMetricParams },
        responses: envelope(historySamplesObj),
      }),
      (c) => {
        const p = c.req.valid('param');
        return ok(c, c.var.services.status.coreMetricsHistory(p.metric, p.bucket));
      },
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/coreObservatory',
        tags,
        summary: 'The core observatory’s outbound probes',
        responses: envelope(observatoryObj),
      }),
      (c) => ok(c, c.var.services.status.observatory()),
    )

    .openapi(
      createRoute({
        method: 'get',
        path: '/coreObservatoryHistory/{tag}/{bucket}',
        tags,
        summary: 'One outbound’s probe delay history',
        request: { params: observatoryHistoryParams },
        responses: envelope(historySamplesObj),
      }),
      (c) => {
        const p = c.req.valid('param');
        return ok(c, c.var.services.status.observatoryHistory(p.tag, p.bucket));
      },
    );
}
