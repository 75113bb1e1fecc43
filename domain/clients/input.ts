// Input schemas for the client API (zod). Numbers also arrive as numeric strings from form posts; booleans as
// "true"/"false". Every failure names the field.
import { z } from 'zod';
import { FLOWS } from './model.js';
import { COMMENT_MAX } from './rules.js';
import { assertJsonInput } from '../shared/json-input.js';

/** Bulk arrays are capped so one request cannot tie up the database for minutes. */
export const BULK_MAX = 10_000;
/** At most this many inbound ids in one client request. */
export const INBOUND_IDS_MAX = 1000;

export const intish = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v),
    z.number({ error: 'must be an integer' }).int('must be an integer').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );

export const boolish = z.preprocess(
  (v) => (v === 'true' ? true : v === 'false' ? false : v),
  z.boolean({ error: 'must be true or false' }),
);

const text = (max: number) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`);
const noControl = (max: number) => text(max).refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

export const inboundIdsSchema = z.array(intish(1), { error: 'must be an array of inbound ids' })
  .max(INBOUND_IDS_MAX, `at most ${INBOUND_IDS_MAX} inbound ids`);

const reverseSchema = z.union([
  z.null(),
  z.object({ tag: noControl(128) }).passthrough(),
  z.string().transform((s, ctx) => {
    if (s.trim() === '') return null;
    try {
      const v = assertJsonInput(JSON.parse(s), 'reverse');
      if (v === null) return null;
      if (v && typeof v === 'object' && typeof v.tag === 'string' && v.tag.length <= 128 && !/[\u0000-\u001f\u007f]/.test(v.tag)) return { tag: v.tag as string };
    } catch { /* fall through */ }
    ctx.addIssue({ code: 'custom', message: 'must be {"tag": string} or its JSON text' });
    return z.NEVER;
  }),
], { error: 'must be {"tag": string}, its JSON text, or null' });

/** Writable client fields (spec: Client). `id` is the VLESS/VMess uuid. */
export const clientInput = z.object({
  email: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters'),
  subId: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters').optional(),
  id: noControl(128).optional(),
  uuid: noControl(128).optional(),
  password: noControl(256).optional(),
  auth: noControl(256).optional(),
  flow: z.enum([...FLOWS, 'none'], { error: `must be one of: ${FLOWS.filter(Boolean).join(', ')} or empty` }).optional(),
  security: z.enum(['', 'auto', 'aes-128-gcm', 'chacha20-poly1305', 'none', 'zero'], { error: 'must be auto, aes-128-gcm, chacha20-poly1305, none or zero' }).optional(),
  totalGB: intish(0).optional(),
  expiryTime: intish().optional(),
  limitIp: intish(0, 1_000_000).optional(),
  tgId: intish(0).optional(),
  comment: text(COMMENT_MAX).optional(),
  enable: boolish.optional(),
  group: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters').optional(),
  reverse: reverseSchema.optional(),
  reset: intish(0, 36500).optional(),
});
export type ClientInput = z.infer<typeof clientInput>;

/** A JSON-encoded client object is accepted too (form posts). */
export const clientField = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    return v;
  }
  return assertJsonInput(parsed, 'client');
}, clientInput);

export const addBody = z.object({
  client: clientField,
  inboundIds: z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }, inboundIdsSchema),
});
export type AddInput = z.infer<typeof addBody>;

export const emailsBody = z.array(z.string({ error: 'must be a string' }).max(255), { error: 'must be an array of emails' })
  .max(BULK_MAX, `at most ${BULK_MAX} emails per request`);
