// Input schemas of the session and credential API.
import { z } from 'zod';

export const loginBody = z.object({
  username: z.string().max(256).meta({ example: 'admin' }),
  password: z.string().max(1024).meta({ example: 'correct horse battery staple' }),
  twoFactorCode: z.string().max(16).optional(),
});

export const updateUserBody = z.object({
  oldUsername: z.string().max(256),
  oldPassword: z.string().max(1024),
  newUsername: z.string().min(1, 'must not be empty').max(256),
  newPassword: z.string().min(1, 'must not be empty').max(1024),
});

// Two-factor enrolment from the settings page (beyond the spec; docs/api.md).
const totpCode = z.string().max(16).meta({ example: '123456' });
const base32Secret = z
  .string()
  .max(256)
  .transform((s) => s.replace(/[\s=]/g, '').toUpperCase())
  .refine((s) => /^[A-Z2-7]{26,128}$/.test(s), 'must be a base32 secret of 26 to 128 characters (A-Z, 2-7)');

export const twoFactorEnableBody = z.object({ secret: base32Secret, code: totpCode });
export const twoFactorDisableBody = z.object({ code: totpCode });
