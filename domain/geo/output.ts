// What the custom geo API answers in the envelope's `obj` (zod, for the OpenAPI document and the typed client).
import { z } from 'zod';
import { GEO_TYPES } from './model.js';

export const geoViewObj = z.object({
  id: z.number(),
  type: z.enum(GEO_TYPES),
  alias: z.string(),
  url: z.string(),
  status: z.enum(['pending', 'ok', 'error']),
  error: z.string(),
  lastDownload: z.number(),
  fileName: z.string(),
  usage: z.string().meta({ description: 'How to use it in a routing rule, e.g. ext:geoip_mylist.dat:tag' }),
});

const aliasObj = z.object({
  alias: z.string(),
  type: z.enum(GEO_TYPES),
  fileName: z.string(),
  builtin: z.boolean(),
  usage: z.string(),
});
export const geoAliasesObj = z.object({ geoip: z.array(aliasObj), geosite: z.array(aliasObj) });

export const geoRemovedObj = z.object({ fileName: z.string(), fileRemoved: z.boolean() });

const file = { id: z.number(), alias: z.string(), fileName: z.string() };
export const geoUpdateAllObj = z.object({
  succeeded: z.array(z.object(file)),
  failed: z.array(z.object({ ...file, error: z.string() })),
});
