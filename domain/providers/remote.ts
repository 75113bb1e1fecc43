// One JSON call to a provider's API through the guarded fetch: the service's own error text is passed on (both
// services answer `{errors: [{message}]}` or `{errors: {message}}` or `{message}`), secrets scrubbed from it.
import type { HttpClient, HttpRequest } from '../ports/http.js';
import { DomainError } from '../shared/errors.js';
import { scrub } from './wireguard.js';

export const PROVIDER_TIMEOUT_MS = 15_000;
const MAX_BYTES = 10 * 1024 * 1024;

function errorText(json: unknown): string {
  if (!json || typeof json !== 'object') return '';
  const j = json as { errors?: unknown; message?: unknown; error?: unknown };
  const first = Array.isArray(j.errors) ? j.errors[0] : j.errors;
  if (first && typeof first === 'object' && typeof (first as { message?: unknown }).message === 'string')
    return (first as { message: string }).message;
  if (typeof j.message === 'string') return j.message;
  if (typeof j.error === 'string') return j.error;
  return '';
}

export async function callJson(
  http: HttpClient,
  what: string,
  req: HttpRequest,
  secrets: (string | undefined)[] = [],
): Promise<{ status: number; json: unknown }> {
  let res;
  try {
    res = await http.request({ timeoutMs: PROVIDER_TIMEOUT_MS, maxBytes: MAX_BYTES, ...req });
  } catch (err) {
    throw new DomainError(scrub(`${what}: ${err instanceof Error ? err.message : String(err)}`, secrets));
  }
  const text = new TextDecoder().decode(res.body);
  let json: unknown = null;
  if (text.trim()) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (res.status < 200 || res.status >= 300) {
    const detail = errorText(json).slice(0, 300);
    throw new DomainError(
      scrub(`${what}: the service answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`, secrets),
    );
  }
  if (json === null && res.status !== 204 && text.trim())
    throw new DomainError(`${what}: the service's answer is not JSON`);
  return { status: res.status, json };
}
