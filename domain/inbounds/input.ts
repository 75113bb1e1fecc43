// Input schemas for the inbound API. JSON or form bodies: numbers may be numeric strings, booleans "true"/"false",
// settings/streamSettings/sniffing objects or JSON-encoded strings (decoded here).
import { z } from 'zod';
import { boolish, clientInput, intish, type ClientInput } from '../clients/input.js';
import { identifierProblem } from '../clients/rules.js';
import { MULTI_CLIENT_PROTOCOLS, PROTOCOLS, type Json } from './model.js';
import { parseJsonObject } from './rules.js';

const noControl = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

/**
 * `settings`, `streamSettings`, `sniffing`: an object or its JSON text (forms send text), decoded here with the
 * depth and Unicode limits of free-form input; absent, null or "" mean `{}`.
 */
const jsonObject = (field: string) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown()), z.null()], {
      error: 'must be an object or a JSON-encoded object',
    })
    .optional()
    .transform((value, ctx): Json => {
      const decoded = parseJsonObject(field, value);
      if (typeof decoded !== 'string') return decoded;
      ctx.addIssue({ code: 'custom', message: decoded.slice(decoded.indexOf(': ') + 2) });
      return z.NEVER;
    });

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
    settings: jsonObject('settings'),
    streamSettings: jsonObject('streamSettings'),
    sniffing: jsonObject('sniffing'),
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
export type FallbacksBody = z.infer<typeof fallbacksBody>;

/** Path parameter `:id` of an inbound (and of nodes, custom geo sources, tokens: domain/shared/input.ts). */
export { idParam } from '../shared/input.js';

export const setEnableBody = z.object({ enable: boolish });

export const IMPORT_CLIENTS_MAX = 100_000;

/** A client of an imported inbound: the client fields plus the export's creation time when it has one. */
export type ImportedClient = ClientInput & { createdAt?: number };
/** An exported inbound, parsed: the inbound's fields and its `settings.clients`. */
export interface InboundImport {
  inbound: InboundInput;
  clients: ImportedClient[];
}

/**
 * POST /inbounds/import: `data` is the JSON text of an exported inbound. Parsed here in full (the inbound, then
 * each of its clients: fields, identifiers, no duplicate email), so the service only builds and stores.
 */
export const importBody = z.object({
  data: z.string({ error: 'must be a JSON-encoded inbound (string)' }).transform((text, ctx): InboundImport => {
    // `problem` is "field.path: message" (the rules' form); the issue's path makes describeZodError say the same.
    const refuse = (problem: string) => {
      const at = problem.indexOf(': ');
      const path = at > 0 ? problem.slice(0, at).split('.') : [];
      ctx.addIssue({ code: 'custom', path, message: at > 0 ? problem.slice(at + 2) : problem });
      return z.NEVER;
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return refuse('malformed JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return refuse('must be a JSON-encoded inbound object');
    const inbound = inboundInput.safeParse(parsed);
    if (!inbound.success) {
      const issue = inbound.error.issues[0]!;
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
      return z.NEVER;
    }
    const list = inbound.data.settings.clients ?? [];
    if (!Array.isArray(list)) return refuse('settings.clients: must be an array');
    if (list.length > IMPORT_CLIENTS_MAX) return refuse(`settings.clients: at most ${IMPORT_CLIENTS_MAX} clients`);
    if (list.length > 0 && !MULTI_CLIENT_PROTOCOLS.includes(inbound.data.protocol))
      return refuse(`settings.clients: protocol ${inbound.data.protocol} does not take clients`);
    const seen = new Set<string>();
    const clients: ImportedClient[] = [];
    for (const [i, entry] of list.entries()) {
      const at = `settings.clients[${i}]`;
      const r = clientInput.safeParse(entry);
      if (!r.success) {
        const issue = r.error.issues[0]!;
        return refuse(`${[at, ...issue.path.map(String)].join('.')}: ${issue.message}`);
      }
      const c = r.data;
      const problem =
        identifierProblem(`${at}.email`, c.email, true) ?? identifierProblem(`${at}.subId`, c.subId ?? '', false);
      if (problem) return refuse(problem);
      if (seen.has(c.email)) return refuse(`${at}.email: duplicate email ${c.email}`);
      seen.add(c.email);
      const extra = entry as Record<string, unknown>;
      const created = Number(extra.created_at ?? extra.createdAt);
      clients.push(Number.isSafeInteger(created) && created > 0 ? { ...c, createdAt: created } : c);
    }
    return { inbound: inbound.data, clients };
  }),
});
