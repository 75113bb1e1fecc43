// TLS Encrypted Client Hello keys as Xray's `tls ech --serverName SNI` produces them
// (draft-ietf-tls-esni, ECHConfig version 0xfe0d):
//   ECHConfig      = uint16 version 0xfe0d, uint16 length, contents:
//                    uint8 config_id, uint16 kem_id (0x0020 DHKEM(X25519, HKDF-SHA256)),
//                    opaque public_key<1..2^16-1>, HpkeSymmetricCipherSuite cipher_suites<4..2^16-4>
//                    (uint16 kdf_id, uint16 aead_id each), uint8 maximum_name_length,
//                    opaque public_name<1..255>, Extension extensions<0..2^16-1>
//   ECHConfigList  = ECHConfig configs<4..2^16-1>          → `echConfigList` (client side, base64)
//   server key set = uint16 len, X25519 private key, uint16 len, ECHConfig   (repeated)
//                                                          → Xray's `tlsSettings.echServerKeys` (base64)
// Xray offers HKDF-SHA256/384/512 with AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305 (nine suites) and
// config_id 0; we do the same.
import { base64 } from '../shared/random.js';
import { x25519RawPair } from './x25519.js';
import { DomainError } from '../shared/errors.js';

export const ECH_VERSION = 0xfe0d;
export const KEM_X25519_HKDF_SHA256 = 0x0020;
export const KDF = { HKDF_SHA256: 1, HKDF_SHA384: 2, HKDF_SHA512: 3 } as const;
export const AEAD = { AES_128_GCM: 1, AES_256_GCM: 2, CHACHA20_POLY1305: 3 } as const;

export const ECH_CIPHER_SUITES: readonly { kdf: number; aead: number }[] = [
  KDF.HKDF_SHA256,
  KDF.HKDF_SHA384,
  KDF.HKDF_SHA512,
].flatMap((kdf) => [AEAD.AES_128_GCM, AEAD.AES_256_GCM, AEAD.CHACHA20_POLY1305].map((aead) => ({ kdf, aead })));

export interface EchConfig {
  configId: number;
  kemId: number;
  publicKey: Uint8Array;
  cipherSuites: { kdf: number; aead: number }[];
  maxNameLength: number;
  publicName: string;
  extensions: { type: number; data: Uint8Array }[];
}

class Writer {
  private parts: number[] = [];
  u8(v: number) {
    this.parts.push(v & 0xff);
    return this;
  }
  u16(v: number) {
    this.parts.push((v >> 8) & 0xff, v & 0xff);
    return this;
  }
  bytes(b: Uint8Array) {
    for (const x of b) this.parts.push(x);
    return this;
  }
  /** Appends `fn`'s output prefixed by its length in `width` bytes. */
  prefixed(width: 1 | 2, fn: (w: Writer) => void) {
    const inner = new Writer();
    fn(inner);
    const b = inner.done();
    const max = width === 1 ? 0xff : 0xffff;
    if (b.length > max) throw new Error('ECH field too long');
    if (width === 1) this.u8(b.length);
    else this.u16(b.length);
    return this.bytes(b);
  }
  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/** One ECHConfig, version and length included. */
export function encodeEchConfig(cfg: EchConfig): Uint8Array {
  const name = new TextEncoder().encode(cfg.publicName);
  if (name.length < 1 || name.length > 255) throw new Error('public_name must be 1 to 255 bytes');
  return new Writer()
    .u16(ECH_VERSION)
    .prefixed(2, (w) => {
      w.u8(cfg.configId)
        .u16(cfg.kemId)
        .prefixed(2, (k) => k.bytes(cfg.publicKey));
      w.prefixed(2, (s) => {
        for (const cs of cfg.cipherSuites) s.u16(cs.kdf).u16(cs.aead);
      });
      w.u8(cfg.maxNameLength).prefixed(1, (n) => n.bytes(name));
      w.prefixed(2, (e) => {
        for (const x of cfg.extensions) e.u16(x.type).prefixed(2, (d) => d.bytes(x.data));
      });
    })
    .done();
}

export function encodeEchConfigList(configs: Uint8Array[]): Uint8Array {
  return new Writer()
    .prefixed(2, (w) => {
      for (const c of configs) w.bytes(c);
    })
    .done();
}

/** One entry of Xray's server key set: the private key and the ECHConfig it belongs to. */
export function encodeEchServerKey(privateKey: Uint8Array, config: Uint8Array): Uint8Array {
  return new Writer()
    .prefixed(2, (w) => w.bytes(privateKey))
    .prefixed(2, (w) => w.bytes(config))
    .done();
}

class Reader {
  private i = 0;
  constructor(private b: Uint8Array) {}
  get empty() {
    return this.i >= this.b.length;
  }
  private need(n: number) {
    if (this.i + n > this.b.length) throw new Error('ECH data truncated');
  }
  u8() {
    this.need(1);
    return this.b[this.i++]!;
  }
  u16() {
    this.need(2);
    const v = (this.b[this.i]! << 8) | this.b[this.i + 1]!;
    this.i += 2;
    return v;
  }
  bytes(n: number) {
    this.need(n);
    const v = this.b.slice(this.i, this.i + n);
    this.i += n;
    return v;
  }
  get remaining() {
    return this.b.length - this.i;
  }
  prefixed(width: 1 | 2) {
    return new Reader(this.bytes(width === 1 ? this.u8() : this.u16()));
  }
}

/** Parses an ECHConfigList (throws on any malformed or trailing byte). */
export function parseEchConfigList(list: Uint8Array): EchConfig[] {
  const outer = new Reader(list);
  const r = outer.prefixed(2);
  if (!outer.empty) throw new Error('trailing bytes after ECHConfigList');
  const out: EchConfig[] = [];
  while (!r.empty) {
    const version = r.u16();
    const c = r.prefixed(2);
    if (version !== ECH_VERSION) continue; // unknown versions are skipped, as clients do
    const configId = c.u8();
    const kemId = c.u16();
    const pk = c.prefixed(2);
    const publicKey = pk.bytes(pk.remaining);
    const suites = c.prefixed(2);
    const cipherSuites: EchConfig['cipherSuites'] = [];
    while (!suites.empty) cipherSuites.push({ kdf: suites.u16(), aead: suites.u16() });
    const maxNameLength = c.u8();
    const nameR = c.prefixed(1);
    const publicName = new TextDecoder().decode(nameR.bytes(nameR.remaining));
    const ext = c.prefixed(2);
    const extensions: EchConfig['extensions'] = [];
    while (!ext.empty) {
      const type = ext.u16();
      const d = ext.prefixed(2);
      extensions.push({ type, data: d.bytes(d.remaining) });
    }
    if (!c.empty) throw new Error('trailing bytes in ECHConfig');
    out.push({ configId, kemId, publicKey, cipherSuites, maxNameLength, publicName, extensions });
  }
  return out;
}

/** Parses Xray's server key set into (private key, ECHConfig bytes) entries. */
export function parseEchServerKeys(data: Uint8Array): { privateKey: Uint8Array; config: Uint8Array }[] {
  const r = new Reader(data);
  const out: { privateKey: Uint8Array; config: Uint8Array }[] = [];
  while (!r.empty) {
    const k = r.prefixed(2);
    const c = r.prefixed(2);
    out.push({ privateKey: k.bytes(k.remaining), config: c.bytes(c.remaining) });
  }
  return out;
}

/** A DNS name usable as ECH public_name (the SNI the outer ClientHello shows). */
export function isValidPublicName(name: string): boolean {
  if (name.length < 1 || name.length > 253) return false;
  if (/^[0-9.]+$/.test(name)) return false; // an IPv4 literal is not allowed as public_name
  return name.split('.').every((label) => /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/.test(label));
}

export interface GeneratedEch {
  /** Base64 server key set for Xray's `tlsSettings.echServerKeys` (all key sets concatenated). */
  echKeySet: string;
  /** Each key set on its own (base64), one per generated ECHConfig. */
  echServerKeys: string[];
  /** Base64 ECHConfigList for clients (`echConfigList`). */
  echConfigList: string;
}

/** getNewEchCert: one X25519 ECH key set whose public_name is `sni`. */
export async function generateEch(sni: string): Promise<GeneratedEch> {
  const name = sni.trim().toLowerCase().replace(/\.$/, '');
  if (!isValidPublicName(name)) throw new DomainError('sni: must be a DNS name (for example cdn.example.com)');
  const pair = await x25519RawPair();
  const config = encodeEchConfig({
    configId: 0,
    kemId: KEM_X25519_HKDF_SHA256,
    publicKey: pair.publicKey,
    cipherSuites: [...ECH_CIPHER_SUITES],
    maxNameLength: 0,
    publicName: name,
    extensions: [],
  });
  const keySet = encodeEchServerKey(pair.privateKey, config);
  return {
    echKeySet: base64(keySet),
    echServerKeys: [base64(keySet)],
    echConfigList: base64(encodeEchConfigList([config])),
  };
}
