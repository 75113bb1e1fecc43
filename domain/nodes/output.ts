// What the node API answers in the envelope's `obj` (zod, for the OpenAPI document and the typed client).
import { z } from 'zod';
import { bucketParam, nodeMetricParam } from '../status/input.js';
import { NODE_SCHEMES, NODE_STATUSES, NODE_TLS_MODES } from './model.js';
import { idParam } from '../shared/input.js';

/** A node (spec: Node); the stored API token is write-only: `apiToken` is always "". */
export const nodeViewObj = z
  .object({
    id: z.number(),
    name: z.string(),
    remark: z.string(),
    scheme: z.enum(NODE_SCHEMES),
    address: z.string(),
    port: z.number(),
    basePath: z.string(),
    apiToken: z.literal(''),
    hasApiToken: z.boolean(),
    enable: z.boolean(),
    allowPrivateAddress: z.boolean(),
    tlsMode: z.enum(NODE_TLS_MODES),
    tlsPin: z.string(),
    status: z.enum(NODE_STATUSES),
    lastHeartbeat: z.number(),
    latencyMs: z.number(),
    coreVersion: z.string(),
    panelVersion: z.string(),
    cpuPct: z.number(),
    memPct: z.number(),
    uptimeSecs: z.number(),
    lastError: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    inboundCount: z.number(),
    clientCount: z.number(),
    onlineCount: z.number(),
    depletedCount: z.number(),
  })
  .meta({ id: 'Node' });

export const probeResultObj = z.object({
  status: z.enum(['online', 'offline', 'error']),
  latencyMs: z.number(),
  coreVersion: z.string(),
  panelVersion: z.string(),
  cpuPct: z.number(),
  memPct: z.number(),
  uptimeSecs: z.number(),
  error: z.string(),
  tlsPin: z.string(),
});

/** `{t, v}` samples of a history ring (t: Unix seconds). */
export const historyObj = z.array(z.object({ t: z.number(), v: z.number() }));

export const nodeHistoryParams = z.object({
  id: idParam.shape.id,
  metric: nodeMetricParam,
  bucket: bucketParam,
});
