// Reading a request body as today's clients send it: JSON (with the JSON content type), an urlencoded or
// multipart form, else {}. The route's schema parses it (handlers/route.ts); InputError becomes the envelope.
import type { Context } from 'hono';
import { jsonInputProblem } from '../domain/shared/json-input.js';

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/**
 * The raw body as an object: JSON when the JSON content type is sent, form fields for form/multipart, else {}.
 * Bytes that are not UTF-8, strings that are not valid Unicode and JSON nested deeper than MAX_JSON_DEPTH below
 * a field are refused here, naming the field, so nothing downstream stores a replacement for what was sent.
 */
export async function rawBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  let body: unknown = {};
  if (/application\/json/i.test(type)) {
    const text = utf8(await c.req.arrayBuffer());
    if (text.trim() === '') return {};
    try {
      body = JSON.parse(text);
    } catch {
      throw new InputError('body: malformed JSON');
    }
  } else if (/application\/x-www-form-urlencoded/i.test(type)) {
    checkFormEncoding(await c.req.text());
    body = await c.req.parseBody({ all: false });
  } else if (/multipart\/form-data/i.test(type)) {
    body = await c.req.parseBody({ all: false });
  }
  const problem = jsonInputProblem(body, '');
  if (problem) throw new InputError(problem);
  return body;
}

function utf8(bytes: ArrayBuffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError('body: not valid UTF-8');
  }
}

/** Percent-escapes that decode to invalid UTF-8 would silently become U+FFFD in the parsed form: refuse them. */
function checkFormEncoding(text: string): void {
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    for (const part of [name, value]) {
      try {
        decodeURIComponent(part.replace(/\+/g, ' '));
      } catch {
        const field = name.replace(/%[0-9a-f]{2}/gi, '?') || 'body';
        throw new InputError(`${field}: not valid UTF-8`);
      }
    }
  }
}
