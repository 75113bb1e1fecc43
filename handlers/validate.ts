// zod validation for every body, query and path parameter; a failure is the envelope naming the field.
import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { ZodError, ZodType } from 'zod';
import { failure } from './envelope.js';

export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const field = issue.path.length ? issue.path.join('.') : 'body';
  return `${field}: ${issue.message}`;
}

export const validate = <T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) =>
  zValidator(target, schema, (result, c) => {
    if (!result.success) return failure(c, describeZodError(result.error as unknown as ZodError));
  });
