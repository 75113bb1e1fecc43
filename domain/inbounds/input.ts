// Input schemas for the inbound API. JSON or form bodies: numbers may be numeric strings, booleans "true"/"false",
// settings/streamSettings/sniffing objects or JSON-encoded strings (decoded by the service, which names the field).
import { z } from 'zod';
import { boolish, intish } from '../clients/input.js';
import { PROTOCOLS } from './model.js';

const noControl = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

const jsonish = z
  .union([z.string(), z.record(z.string(), z.unknown()), z.null()], {
    error: 'must be an object or a JSON-encoded object',
  })
  .optional();

const nodeId = z
  .preprocess((v) => (v === '' || v === 'null' || v === undefined ? null : v), z.union([z.null(), intish(0)]))
  .optional();

export const inboundInput = z.object(
  {
    enable: boolish.optional(),
    remark: noControl(256).optional(),
    listen: noControl(255).optional(),
    port: intish(1, 65535),
    protocol: z.enum(PROTOCOLS, { error: `must be one of: ${PROTOCOLS.join(', ')}` }),
    expiryTime: intish(0).optional(),
    total: intish(0).optional(),
    settings: jsonish,
    streamSettings: jsonish,
    sniffing: jsonish,
    nodeId,
  },
  { error: 'must be an inbound object' },
);
export type InboundInput = z.infer<typeof inboundInput>;

export const FALLBACKS_MAX = 100;

export const fallbackInput = z.object({
  childId: intish(1),
  name: noControl(255).optional(),
  alpn: noControl(255).optional(),
  path: noControl(1024).optional(),
  xver: intish(0, 2).optional(),
  sortOrder: intish(-1_000_000, 1_000_000).optional(),
});

export const fallbacksBody = z.object({
  fallbacks: z
    .array(fallbackInput, { error: 'must be an array of fallback rules' })
    .max(FALLBACKS_MAX, `at most ${FALLBACKS_MAX} rules`),
});

/** Path parameter `:id` of an inbound (and of nodes, custom geo sources, tokens: domain/shared/input.ts). */
export { idParam } from '../shared/input.js';

export const setEnableBody = z.object({ enable: boolish });

/** POST /inbounds/import: `data` is the JSON text of an exported inbound. */
export const importBody = z.object({ data: z.string({ error: 'must be a JSON-encoded inbound (string)' }) });
