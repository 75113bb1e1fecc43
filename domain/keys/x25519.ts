// X25519 key pairs as Xray's `x25519` prints them: a random 32-byte private key, clamped (RFC 7748), and its
// public key, both raw and base64url without padding (43 characters). Web Crypto only, so it runs anywhere.
import { base64url, randomBytes } from '../shared/random.js';

/** PKCS#8 wrapper of a raw X25519 private key (RFC 8410): fixed 16-byte prefix + 32 key bytes. */
const PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20,
]);

/** Clamps a scalar as Xray does before printing it (so the printed key is the one actually used). */
export function clampX25519(key: Uint8Array): Uint8Array {
  const k = Uint8Array.from(key);
  k[0]! &= 248;
  k[31]! &= 127;
  k[31]! |= 64;
  return k;
}

function fromBase64url(text: string): Uint8Array {
  const norm = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(norm + '='.repeat((4 - (norm.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The raw 32-byte public key of a raw 32-byte private key. */
export async function x25519PublicKey(privateKey: Uint8Array): Promise<Uint8Array> {
  if (privateKey.length !== 32) throw new Error('X25519 private key must be 32 bytes');
  const der = new Uint8Array(48);
  der.set(PKCS8_PREFIX);
  der.set(privateKey, 16);
  const key = await globalThis.crypto.subtle.importKey('pkcs8', der, { name: 'X25519' }, true, ['deriveBits']);
  const jwk = await globalThis.crypto.subtle.exportKey('jwk', key);
  if (!jwk.x) throw new Error('X25519 public key not exported');
  return fromBase64url(jwk.x);
}

/** A fresh raw key pair (private key clamped). */
export async function x25519RawPair(): Promise<{ privateKey: Uint8Array; publicKey: Uint8Array }> {
  const privateKey = clampX25519(randomBytes(32));
  return { privateKey, publicKey: await x25519PublicKey(privateKey) };
}

/** getNewX25519Cert: `{privateKey, publicKey}` in base64url without padding (REALITY privateKey / password). */
export async function generateX25519(): Promise<{ privateKey: string; publicKey: string }> {
  const pair = await x25519RawPair();
  return { privateKey: base64url(pair.privateKey), publicKey: base64url(pair.publicKey) };
}
