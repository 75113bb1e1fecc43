// Input schemas of the core API (/panel/core/*).
import { z } from 'zod';
import { boolish } from '../clients/input.js';
import { jsonInputProblem } from '../shared/json-input.js';

export const coreUpdateBody = z.object({
  coreSetting: z
    .string({ error: 'is required' })
    .min(2, 'must be the JSON text of the core config template')
    .max(5 * 1024 * 1024),
  outboundTestUrl: z.string().max(2048).optional(),
});

type JsonObject = Record<string, unknown>;

/** JSON text decoded here, with the depth and Unicode limits of free-form input, into an object or an array. */
function decodeJson<T extends 'object' | 'array'>(text: string, ctx: z.RefinementCtx, shape: T) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
    return z.NEVER;
  }
  const problem = jsonInputProblem(value, 'value');
  const isArray = Array.isArray(value);
  const message = problem
    ? problem.replace(/^[^:]*: /, '')
    : shape === 'array'
      ? !isArray && 'must be a JSON array'
      : (!value || typeof value !== 'object' || isArray) && 'must be a JSON object';
  if (message) {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  }
  return value as T extends 'array' ? unknown[] : JsonObject;
}

export const testOutboundBody = z.object({
  outbound: z
    .string({ error: 'is required' })
    .min(2, 'is required (the outbound as JSON text)')
    .max(1024 * 1024)
    .transform((text, ctx) => decodeJson(text, ctx, 'object')),
  allOutbounds: z
    .string()
    .max(5 * 1024 * 1024)
    .optional()
    .transform((text, ctx): JsonObject[] => {
      if (!text?.trim()) return [];
      const list = decodeJson(text, ctx, 'array');
      // After a refusal the value is never used; only objects of a valid list go on.
      if (!Array.isArray(list)) return [];
      return list.filter((o): o is JsonObject => !!o && typeof o === 'object' && !Array.isArray(o));
    }),
  mode: z
    .string()
    .max(16)
    .optional()
    .transform((m, ctx) => {
      const mode = (m ?? '').trim();
      if (mode === '' || mode === 'tcp') return mode;
      ctx.addIssue({ code: 'custom', message: 'must be "tcp" or empty' });
      return z.NEVER;
    }),
  /** Opt-in for an outbound whose server really is on a private network (refused by default). */
  allowPrivate: boolish.optional(),
});
export type TestOutboundInput = z.output<typeof testOutboundBody>;

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
