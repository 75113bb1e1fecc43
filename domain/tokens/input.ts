// What the token routes accept (and the CLI's `token create NAME`): parsed before the service sees it.
import { z } from 'zod';
import { boolish } from '../clients/input.js';

export const tokenName = z.string().trim().min(1, 'must be 1 to 64 characters').max(64, 'must be 1 to 64 characters');
export const tokenNameBody = z.object({ name: tokenName });
export const setEnabledBody = z.object({ enabled: boolish });
