// Input schemas of the core API (/panel/core/*).
import { z } from 'zod';
import { boolish } from '../clients/input.js';

export const coreUpdateBody = z.object({
  coreSetting: z
    .string({ error: 'is required' })
    .min(2, 'must be the JSON text of the core config template')
    .max(5 * 1024 * 1024),
  outboundTestUrl: z.string().max(2048).optional(),
});

export const testOutboundBody = z.object({
  outbound: z
    .string({ error: 'is required' })
    .min(2, 'is required (the outbound as JSON text)')
    .max(1024 * 1024),
  allOutbounds: z
    .string()
    .max(5 * 1024 * 1024)
    .optional(),
  mode: z.string().max(16).optional(),
  /** Opt-in for an outbound whose server really is on a private network (refused by default). */
  allowPrivate: boolish.optional(),
});

/** POST /panel/core/resetOutboundsTraffic. */
export const resetOutboundsBody = z.object({
  tag: z
    .string({ error: 'required (an outbound tag, or -alltags- for every outbound)' })
    .max(256, 'at most 256 characters'),
});

export const coreSettingsObj = z.object({
  coreSetting: z.string().meta({ description: 'The core config template as JSON text' }),
  inboundTags: z.string(),
  clientReverseTags: z.string(),
  outboundTestUrl: z.string(),
});

export const outboundProbeObj = z.object({ success: z.boolean(), delay: z.number(), error: z.string() });

export const outboundTrafficObj = z.array(
  z.object({
    tag: z.string(),
    up: z.number(),
    down: z.number(),
    total: z.number(),
  }),
);
