// WireGuard key pairs and the outbound-template edits both providers share. WireGuard keys are X25519 keys in
// standard base64 with padding (44 characters), unlike Xray's base64url REALITY keys. Pure (Web Crypto only).
import type { Json } from '../inbounds/model.js';
import { base64, fromBase64 } from '../shared/random.js';
import { clampX25519, x25519PublicKey } from '../keys/x25519.js';
import { DomainError } from '../shared/errors.js';

/** Parses a WireGuard key (base64 or base64url, 32 bytes); null when it is not one. */
export function parseWgKey(text: string): Uint8Array | null {
  const t = text.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) return null;
  try {
    const raw = fromBase64(t.replace(/=$/, ''));
    return raw.length === 32 ? raw : null;
  } catch {
    return null;
  }
}

export async function wgPublicKey(privateKey: Uint8Array): Promise<string> {
  return base64(await x25519PublicKey(clampX25519(privateKey)));
}

export async function generateWgKeyPair(): Promise<{ privateKey: string; publicKey: string }> {
  const priv = clampX25519(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  return { privateKey: base64(priv), publicKey: base64(await x25519PublicKey(priv)) };
}

/**
 * The key pair to register: generated when neither key is given, the public key derived when only the private
 * one is, and a given pair checked to belong together (the service would accept a mismatched pair and the
 * tunnel would then never come up).
 */
export async function resolveWgKeyPair(
  privateKey?: string,
  publicKey?: string,
): Promise<{ privateKey: string; publicKey: string; generated: boolean }> {
  const priv = privateKey?.trim() ?? '';
  const pub = publicKey?.trim() ?? '';
  if (!priv && !pub) return { ...(await generateWgKeyPair()), generated: true };
  if (!priv) throw new DomainError('privateKey: required when publicKey is given (or give neither to generate a pair)');
  const raw = parseWgKey(priv);
  if (!raw) throw new DomainError('privateKey: must be a WireGuard key (32 bytes in base64)');
  const derived = await wgPublicKey(raw);
  if (pub) {
    const rawPub = parseWgKey(pub);
    if (!rawPub) throw new DomainError('publicKey: must be a WireGuard key (32 bytes in base64)');
    if (base64(rawPub) !== derived) throw new DomainError('publicKey: does not belong to privateKey');
  }
  return { privateKey: base64(raw), publicKey: derived, generated: false };
}

// ---- the core template -----------------------------------------------------------------------------------------

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

export interface OutboundEdit {
  /** Outbounds to put in (replacing any with the same tag, in place). */
  put?: Json[];
  /** Tags to take out; their routing rules go with them (a rule naming a missing outbound is a config error). */
  remove?: (tag: string) => boolean;
}

/** Applies an edit to a copy of the template; null when nothing changes. */
export function editOutbounds(
  template: Json,
  edit: OutboundEdit,
): { template: Json; removed: string[]; rulesRemoved: number } | null {
  const tpl = structuredClone(template);
  const outbounds = Array.isArray(tpl.outbounds) ? (tpl.outbounds as Json[]) : [];
  const removed: string[] = [];
  let next = outbounds.filter((o) => {
    const tag = isObject(o) && typeof o.tag === 'string' ? o.tag : '';
    if (tag && edit.remove?.(tag)) {
      removed.push(tag);
      return false;
    }
    return true;
  });
  for (const ob of edit.put ?? []) {
    const i = next.findIndex((o) => isObject(o) && o.tag === ob.tag);
    if (i >= 0) next[i] = ob;
    else next = [...next, ob];
  }
  let rulesRemoved = 0;
  const gone = new Set(removed.filter((t) => !(edit.put ?? []).some((o) => o.tag === t)));
  if (gone.size && isObject(tpl.routing) && Array.isArray(tpl.routing.rules)) {
    const rules = tpl.routing.rules as unknown[];
    const kept = rules.filter((r) => !(isObject(r) && typeof r.outboundTag === 'string' && gone.has(r.outboundTag)));
    rulesRemoved = rules.length - kept.length;
    tpl.routing.rules = kept;
  }
  tpl.outbounds = next;
  if (JSON.stringify(tpl) === JSON.stringify(template)) return null;
  return { template: tpl, removed: [...gone], rulesRemoved };
}

/** A copy of an outbound for answers: the WireGuard secret key is kept in the template only. */
export function redactOutbound(ob: Json): Json {
  const copy = structuredClone(ob);
  if (isObject(copy.settings) && typeof copy.settings.secretKey === 'string')
    copy.settings.secretKey = SECRET_PLACEHOLDER;
  return copy;
}
export const SECRET_PLACEHOLDER = '(hidden: stored in the core template)';

/** `****` plus the last 4 characters: enough to recognise a key, not to use it. */
export const masked = (s: string): string => (s ? `****${s.slice(-4)}` : '');

/** Removes every occurrence of the given secrets from a text (an outside service may echo them back). */
export function scrub(text: string, secrets: (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join('***');
  return out;
}
