// Reading a request body as today's clients send it: JSON (with the JSON content type), an urlencoded or
// multipart form, else {}. The route's schema parses it (handlers/route.ts); InputError becomes the envelope.
import type { Context } from 'hono';

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
