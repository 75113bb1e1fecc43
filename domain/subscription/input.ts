// Path parameters of the share-link routes.
import { z } from 'zod';

export const linksEmailParam = z.object({ email: z.string().min(1, 'email is required') });
export const subIdParam = z.object({ subId: z.string().min(1, 'subId is required') });
