// Limits on free-form input, checked before anything is stored: JSON nested deeper than any real core config
// (an inbound's settings 2,000 levels deep used to be stored and then broke every config build), and strings
// that are not valid Unicode (a lone surrogate was stored as U+FFFD, so what was stored was not what was sent).
import { DomainError } from './errors.js';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `s` is well-formed UTF-16 (String.prototype.isWellFormed, which our ES2023 lib does not type). */
export const isWellFormedText = (s: string): boolean => !LONE_SURROGATE.test(s);

/** Deepest nesting accepted in a JSON field (a real Xray config stays well under 16). */
export const MAX_JSON_DEPTH = 32;

/**
 * What is wrong with a decoded input value, or null: nesting deeper than `maxDepth` below the value, or a string
 * (value or key) that is not well-formed UTF-16. Iterative, so a hostile depth cannot exhaust the stack.
 * The message names `field`, or for an object at the top of a body (`field` empty) the key that holds the problem.
 */
export function jsonInputProblem(value: unknown, field: string, maxDepth = MAX_JSON_DEPTH): string | null {
  // A body's own object does not count: its fields get the same depth limit as a field checked on its own.
  const stack: { v: unknown; depth: number; name: string }[] = [{ v: value, depth: field ? 0 : -1, name: field }];
  while (stack.length > 0) {
    const { v, depth, name } = stack.pop()!;
    if (typeof v === 'string') {
      if (!isWellFormedText(v)) return `${name || 'body'}: not valid Unicode (a lone surrogate)`;
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth >= maxDepth) return `${name || 'body'}: nested deeper than ${maxDepth} levels`;
    const entries = Array.isArray(v) ? v.map((x) => ['', x] as const) : Object.entries(v);
    for (const [key, child] of entries) {
      const childName = name || key;
      if (!isWellFormedText(key)) return `${childName || 'body'}: not valid Unicode (a lone surrogate in a key)`;
      stack.push({ v: child, depth: depth + 1, name: childName });
    }
  }
  return null;
}

/** Throws a DomainError naming the field when `value` is nested too deep or holds a string that is not Unicode. */
export function assertJsonInput<T>(value: T, field: string): T {
  const problem = jsonInputProblem(value, field);
  if (problem) throw new DomainError(problem);
  return value;
}

/** JSON text of a field → its value; throws a DomainError naming the field when malformed, too deep or not Unicode. */
export function parseJsonField(text: string, field: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError(`${field}: malformed JSON`);
  }
  return assertJsonInput(parsed, field);
}
