// Input schemas shared by several resources.
import { z } from 'zod';

/** A path parameter `:id`: a positive integer of at most 9 digits. */
export const idParam = z.object({
  id: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a positive integer')
    .transform(Number)
    .refine((n) => n > 0, 'must be a positive integer')
    .meta({ example: '1' }),
});
