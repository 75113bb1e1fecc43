// Path parameters of the history routes, parsed at the route: the services receive a known metric and a bucket
// size in seconds. An unknown value is refused by name with the allowed list.
import { z } from 'zod';
import { NODE_METRICS } from '../nodes/model.js';
import { CORE_METRICS, HISTORY_BUCKETS, HISTORY_METRICS } from './model.js';

const got = (input: unknown) => `got "${String(input).slice(0, 40)}"`;

/** One of `values`; anything else is "must be one of …, got "…"". */
const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (iss) => `must be one of ${values.join(', ')}, ${got(iss.input)}` });

/** A bucket size in seconds, given as a path segment: one of the spec's sizes. */
export const bucketParam = z
  .string()
  .max(16)
  .transform((raw, ctx) => {
    const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
    if ((HISTORY_BUCKETS as readonly number[]).includes(n)) return n;
    ctx.addIssue({ code: 'custom', message: `must be one of ${HISTORY_BUCKETS.join(', ')} (seconds), ${got(raw)}` });
    return z.NEVER;
  })
  .meta({ description: `Bucket size in seconds: ${HISTORY_BUCKETS.join(', ')}` });

export const historyParams = z.object({ metric: oneOf(HISTORY_METRICS), bucket: bucketParam });
export const cpuHistoryParams = z.object({ bucket: bucketParam });
export const coreMetricParams = z.object({ metric: oneOf(CORE_METRICS), bucket: bucketParam });
export const observatoryHistoryParams = z.object({ tag: z.string().max(256), bucket: bucketParam });
export const nodeMetricParam = oneOf(NODE_METRICS);
