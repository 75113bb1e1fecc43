// Post-quantum key material as Xray prints it (`xray mldsa65`, `xray mlkem768`), through @noble/post-quantum.
//
// ML-DSA-65 (FIPS 204): Xray keeps only the 32-byte seed (server `mldsa65Seed`) and prints the 1952-byte public
// key as "Verify" (client `mldsa65Verify`). We also return the expanded 4032-byte secret key as `privateKey`
// (the spec's shape); Xray's config does not use it.
// ML-KEM-768 (FIPS 203): the 64-byte seed d||z is the server key (VLESS `decryption`), the 1184-byte
// encapsulation key is the client key (VLESS `encryption`). All values are base64url without padding.
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { base64url, randomBytes } from '../shared/random.js';

export const MLDSA65_SEED_BYTES = 32;
export const MLDSA65_PUBLIC_BYTES = 1952;
export const MLDSA65_SECRET_BYTES = 4032;
export const MLKEM768_SEED_BYTES = 64;
export const MLKEM768_PUBLIC_BYTES = 1184;

export function mldsa65Raw(seed: Uint8Array = randomBytes(MLDSA65_SEED_BYTES)) {
  if (seed.length !== MLDSA65_SEED_BYTES) throw new Error('ML-DSA-65 seed must be 32 bytes');
  const { publicKey, secretKey } = ml_dsa65.keygen(seed);
  return { seed: Uint8Array.from(seed), publicKey, secretKey };
}

/** getNewmldsa65: `{privateKey, publicKey, seed}`. */
export function generateMldsa65(seed?: Uint8Array): { privateKey: string; publicKey: string; seed: string } {
  const k = mldsa65Raw(seed);
  return { privateKey: base64url(k.secretKey), publicKey: base64url(k.publicKey), seed: base64url(k.seed) };
}

export function mlkem768Raw(seed: Uint8Array = randomBytes(MLKEM768_SEED_BYTES)) {
  if (seed.length !== MLKEM768_SEED_BYTES) throw new Error('ML-KEM-768 seed must be 64 bytes');
  const { publicKey } = ml_kem768.keygen(seed);
  return { seed: Uint8Array.from(seed), publicKey };
}

/** getNewmlkem768: `{clientKey, serverKey}` (encapsulation key, seed). */
export function generateMlkem768(seed?: Uint8Array): { clientKey: string; serverKey: string } {
  const k = mlkem768Raw(seed);
  return { clientKey: base64url(k.publicKey), serverKey: base64url(k.seed) };
}
