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
