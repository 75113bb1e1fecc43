// What the inbound API answers in the envelope's `obj` (zod, for the OpenAPI document and the typed client).
import { z } from 'zod';
import { PROTOCOLS } from './model.js';

const json = z.record(z.string(), z.unknown());

export const clientStatObj = z.object({
  id: z.number(),
  inboundId: z.number(),
  email: z.string(),
  enable: z.boolean(),
  up: z.number(),
  down: z.number(),
  total: z.number(),
  expiryTime: z.number(),
  reset: z.number(),
  lastOnline: z.number(),
  uuid: z.string().optional(),
  subId: z.string().optional(),
});

/** An inbound (spec: Inbound): settings with its clients projected from the client rows, and their counters. */
export const inboundViewObj = z
  .object({
    id: z.number(),
    userId: z.number(),
    up: z.number(),
    down: z.number(),
    total: z.number(),
    remark: z.string(),
    enable: z.boolean(),
    expiryTime: z.number(),
    listen: z.string(),
    port: z.number(),
    protocol: z.enum(PROTOCOLS),
    settings: json.meta({ description: 'Protocol settings; `clients` projected from the client rows' }),
    streamSettings: json,
    sniffing: json,
    tag: z.string(),
    nodeId: z.number().nullable(),
    clientStats: z.array(clientStatObj),
  })
  .meta({ id: 'Inbound' });

export const inboundOptionObj = z.object({
  id: z.number(),
  remark: z.string(),
  protocol: z.enum(PROTOCOLS),
  port: z.number(),
  tlsFlowCapable: z.boolean(),
});

export const fallbackRuleObj = z.object({
  id: z.number(),
  masterId: z.number(),
  childId: z.number(),
  name: z.string(),
  alpn: z.string(),
  path: z.string(),
  xver: z.number(),
  sortOrder: z.number(),
});
