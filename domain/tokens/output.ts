// What the token routes answer in the envelope's `obj` (zod, for the OpenAPI document and the typed client).
import { z } from 'zod';

export const apiTokenObj = z.object({
  id: z.number(),
  name: z.string(),
  token: z.string(),
  enabled: z.boolean(),
  createdAt: z.number().meta({ description: 'Unix seconds' }),
});
