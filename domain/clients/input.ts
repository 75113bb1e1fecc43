// Input schemas for the client API (zod). Numbers also arrive as numeric strings from form posts; booleans as
// "true"/"false". Every failure names the field.
import { z } from 'zod';
import { BUCKETS, FLOWS, SORT_KEYS, type PageQuery } from './model.js';
import { COMMENT_MAX, identifierProblem } from './rules.js';
import { PROTOCOLS } from '../inbounds/model.js';
import { describeZodError } from '../shared/zod-error.js';
import { assertJsonInput } from '../shared/json-input.js';

/** Bulk arrays are capped so one request cannot tie up the database for minutes. */
export const BULK_MAX = 10_000;
/** At most this many inbound ids in one client request. */
export const INBOUND_IDS_MAX = 1000;

export const intish = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v),
    z
      .number({ error: 'must be an integer' })
      .int('must be an integer')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

export const boolish = z.preprocess(
  (v) => (v === 'true' ? true : v === 'false' ? false : v),
  z.boolean({ error: 'must be true or false' }),
);

const text = (max: number) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`);
const noControl = (max: number) =>
  text(max).refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

export const inboundIdsSchema = z
  .array(intish(1), { error: 'must be an array of inbound ids' })
  .max(INBOUND_IDS_MAX, `at most ${INBOUND_IDS_MAX} inbound ids`);

const reverseSchema = z.union(
  [
    z.null(),
    z.object({ tag: noControl(128) }).passthrough(),
    z.string().transform((s, ctx) => {
      if (s.trim() === '') return null;
      try {
        const v = assertJsonInput(JSON.parse(s), 'reverse');
        if (v === null) return null;
        if (
          v &&
          typeof v === 'object' &&
          typeof v.tag === 'string' &&
          v.tag.length <= 128 &&
          !/[\u0000-\u001f\u007f]/.test(v.tag)
        )
          return { tag: v.tag as string };
      } catch {
        /* fall through */
      }
      ctx.addIssue({ code: 'custom', message: 'must be {"tag": string} or its JSON text' });
      return z.NEVER;
    }),
  ],
  { error: 'must be {"tag": string}, its JSON text, or null' },
);

/** Writable client fields (spec: Client). `id` is the VLESS/VMess uuid. */
export const clientInput = z.object({
  email: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters'),
  subId: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters').optional(),
  id: noControl(128).optional(),
  uuid: noControl(128).optional(),
  password: noControl(256).optional(),
  auth: noControl(256).optional(),
  flow: z
    .enum([...FLOWS, 'none'], { error: `must be one of: ${FLOWS.filter(Boolean).join(', ')} or empty` })
    .optional(),
  security: z
    .enum(['', 'auto', 'aes-128-gcm', 'chacha20-poly1305', 'none', 'zero'], {
      error: 'must be auto, aes-128-gcm, chacha20-poly1305, none or zero',
    })
    .optional(),
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

export const emailsBody = z
  .array(z.string({ error: 'must be a string' }).max(255), { error: 'must be an array of emails' })
  .max(BULK_MAX, `at most ${BULK_MAX} emails per request`);

/** Path parameter `:email` (the client key). */
export const emailParam = z.object({
  email: z
    .string()
    .superRefine((v, ctx) => {
      const problem = identifierProblem('email', v, true);
      if (problem) ctx.addIssue({ code: 'custom', message: problem.replace(/^email: /, '') });
    })
    .meta({ example: 'alice@example.com' }),
});

/** Path parameter `:name` (a group). */
export const groupNameParam = z.object({ name: z.string().min(1, 'must not be empty').max(255) });

const PAGE_DEFAULT = 25;
const PAGE_MAX = 200;

/** GET /clients/list/paged: out-of-range page numbers and sizes fall back to the defaults (page 1, 25, at most 200). */
export const pageQuery = z
  .object({
    page: intish(-1_000_000_000, 1_000_000_000).optional(),
    pageSize: intish(-1_000_000_000, 1_000_000_000).optional(),
    search: z.string().max(255, 'must be at most 255 characters').optional(),
    filter: z.enum(['', ...BUCKETS], { error: `must be one of: ${BUCKETS.join(', ')}` }).optional(),
    protocol: z.enum(['', ...PROTOCOLS], { error: `must be one of: ${PROTOCOLS.join(', ')}` }).optional(),
    sort: z.enum(['', ...SORT_KEYS], { error: `must be one of: ${SORT_KEYS.join(', ')}` }).optional(),
    order: z.enum(['', 'ascend', 'descend'], { error: 'must be ascend or descend' }).optional(),
    group: z.string().max(255).optional(),
    inbound: intish(1).optional().meta({ description: 'Only clients attached to this inbound id' }),
  })
  .transform((q): PageQuery => ({
    page: !q.page || q.page < 1 ? 1 : q.page,
    pageSize: !q.pageSize || q.pageSize <= 0 ? PAGE_DEFAULT : Math.min(q.pageSize, PAGE_MAX),
    search: q.search ?? '',
    filter: q.filter ?? '',
    protocol: q.protocol ?? '',
    sort: q.sort ?? '',
    order: q.order === 'descend' ? 'descend' : 'ascend',
    group: q.group,
    inboundId: q.inbound,
  }));

export const keepTrafficQuery = z.object({
  keepTraffic: z
    .enum(['0', '1', 'true', 'false'], { error: 'must be 0 or 1' })
    .optional()
    .transform((v) => v === '1' || v === 'true'),
});

export const inboundIdsBody = z.object({ inboundIds: inboundIdsSchema });

/** POST /clients/update/:email: the client object itself; `{client: {...}}` or its JSON text is accepted too. */
export const clientUpdateBody = z.preprocess((body, ctx) => {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    if (o.client !== undefined && o.email === undefined) {
      if (typeof o.client !== 'string') body = o.client;
      else {
        try {
          body = JSON.parse(o.client);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'malformed JSON', path: ['client'] });
          return z.NEVER;
        }
        assertJsonInput(body, 'client');
      }
    }
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    ctx.addIssue({ code: 'custom', message: 'must be a client object' });
    return z.NEVER;
  }
  return body;
}, clientInput);

export const bulkAdjustBody = z.object({
  emails: emailsBody,
  addDays: intish(-365_000, 365_000).optional(),
  addBytes: intish().optional(),
});

export const bulkDelBody = z.object({ emails: emailsBody, keepTraffic: boolish.optional() });
export const bulkAssignGroupBody = z.object({
  emails: emailsBody,
  group: z.string({ error: 'must be a string' }).max(255),
});
export const bulkEmailsBody = z.object({ emails: emailsBody });
export const groupNameBody = z.object({ name: z.string({ error: 'must be a string' }).max(255) });
export const groupRenameBody = z.object({
  oldName: z.string({ error: 'must be a string' }).max(255),
  newName: z.string({ error: 'must be a string' }).max(255),
});
export const updateTrafficBody = z.object({ upload: intish(0), download: intish(0) });

/** One item of /clients/bulkCreate after its own parse: a bad item is skipped with its reason, not the request. */
export type BulkCreateItem =
  { ok: true; client: ClientInput; inboundIds: number[] } | { ok: false; email: string; reason: string };

const emailOf = (raw: unknown): string => {
  const c = (raw as { client?: { email?: unknown } } | null)?.client;
  return c && typeof c === 'object' && typeof c.email === 'string' ? c.email : '';
};

/** POST /clients/bulkCreate: an array of {client, inboundIds} (or `{clients: [...]}`); each item parsed on its own. */
export const bulkCreateBody = z
  .preprocess(
    (body) =>
      body && typeof body === 'object' && !Array.isArray(body) && Array.isArray((body as { clients?: unknown }).clients)
        ? (body as { clients: unknown[] }).clients
        : body,
    z
      .array(z.unknown(), { error: 'must be an array of {client, inboundIds}' })
      .max(BULK_MAX, `at most ${BULK_MAX} clients per request`)
      .transform((items) =>
        items.map((raw, index): BulkCreateItem => {
          const r = addBody.safeParse(raw);
          return r.success
            ? { ok: true, client: r.data.client, inboundIds: r.data.inboundIds }
            : { ok: false, email: emailOf(raw), reason: describeZodError(r.error, `[${index}]`) };
        }),
      ),
  )
  .meta({ description: 'An array of `{client, inboundIds}` objects as for /clients/add (or `{clients: [...]}`)' });
