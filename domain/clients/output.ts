// What the client API answers in the envelope's `obj` (zod, for the OpenAPI document and the typed client).
// The shapes mirror model.ts; a handler that answered anything else would not type-check.
import { z } from 'zod';

export const clientTrafficViewObj = z.object({
  up: z.number(),
  down: z.number(),
  enable: z.boolean(),
  lastOnline: z.number().meta({ description: 'Unix seconds; 0 never' }),
});

/** A full client: the record, its inbound ids and counters (spec: Client). */
export const clientViewObj = z
  .object({
    id: z.number(),
    email: z.string(),
    subId: z.string(),
    uuid: z.string(),
    password: z.string(),
    auth: z.string(),
    flow: z.string(),
    security: z.string(),
    method: z.string().optional(),
    totalGB: z.number().meta({ description: 'Quota in bytes; 0 unlimited' }),
    expiryTime: z.number().meta({ description: 'Unix ms; 0 none; negative: delayed start of -expiryTime ms' }),
    enable: z.boolean(),
    limitIp: z.number(),
    tgId: z.number(),
    comment: z.string(),
    group: z.string(),
    reverse: z.object({ tag: z.string() }).nullable(),
    reset: z.number(),
    createdAt: z.number(),
    updatedAt: z.number(),
    inboundIds: z.array(z.number()),
    traffic: clientTrafficViewObj,
  })
  .meta({ id: 'Client' });

export const clientGetObj = z.object({ client: clientViewObj, inboundIds: z.array(z.number()) });

const clientSlimObj = z.object({
  email: z.string(),
  subId: z.string(),
  enable: z.boolean(),
  totalGB: z.number(),
  expiryTime: z.number(),
  limitIp: z.number(),
  reset: z.number(),
  comment: z.string(),
  group: z.string(),
  inboundIds: z.array(z.number()),
  traffic: clientTrafficViewObj,
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const clientPageObj = z.object({
  items: z.array(clientSlimObj),
  total: z.number(),
  filtered: z.number(),
  page: z.number(),
  pageSize: z.number(),
  summary: z.object({
    total: z.number(),
    active: z.number(),
    online: z.array(z.string()),
    depleted: z.array(z.string()),
    expiring: z.array(z.string()),
    deactive: z.array(z.string()),
    onlineCount: z.number(),
    depletedCount: z.number(),
    expiringCount: z.number(),
    deactiveCount: z.number(),
  }),
  groups: z.array(z.string()),
});

const skipped = z.array(z.object({ email: z.string(), reason: z.string() }));
export const bulkResultObj = z.object({
  affected: z.number().optional(),
  adjusted: z.number().optional(),
  deleted: z.number().optional(),
  skipped: skipped.optional(),
});
export const bulkCreateObj = z.object({ created: z.number(), skipped });
export const affectedObj = z.object({ affected: z.number() });
export const inboundIdsObj = z.object({ inboundIds: z.array(z.number()) });
export const groupObj = z.object({ name: z.string(), clientCount: z.number().optional() });
export const clientTrafficObj = z.object({
  email: z.string(),
  up: z.number(),
  down: z.number(),
  total: z.number(),
  expiryTime: z.number(),
});
