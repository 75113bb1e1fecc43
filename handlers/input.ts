// Reading request input: JSON (with the JSON content type) or form bodies, query and path parameters, all
// parsed by zod. A failure throws InputError, which the app turns into the envelope naming the field.
import type { Context } from 'hono';
import type { z, ZodType } from 'zod';
import { describeZodError } from './validate.js';

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/** The raw body as an object: JSON when the JSON content type is sent, form fields for form/multipart, else {}. */
export async function rawBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (/application\/json/i.test(type)) {
    const text = await c.req.text();
    if (text.trim() === '') return {};
    try {
      return JSON.parse(text);
    } catch {
      throw new InputError('body: malformed JSON');
    }
  }
  if (/application\/x-www-form-urlencoded|multipart\/form-data/i.test(type)) {
    const form = await c.req.parseBody({ all: false });
    return form;
  }
  return {};
}

function check<T extends ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new InputError(describeZodError(r.error));
  return r.data;
}

export async function parseBody<T extends ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  return check(schema, await rawBody(c));
}

export function parseQuery<T extends ZodType>(c: Context, schema: T): z.infer<T> {
  return check(schema, c.req.query());
}

export function parseParams<T extends ZodType>(c: Context, schema: T): z.infer<T> {
  return check(schema, c.req.param());
}
