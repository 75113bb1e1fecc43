// Key formats of the server tools: lengths, encodings, key pairs that belong together, and ML-DSA/ML-KEM keys
// reproduced from their seeds (as `xray mldsa65 -i SEED` / `xray mlkem768 -i SEED` would).
import { describe, expect, it } from 'vitest';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { generateX25519, x25519PublicKey, clampX25519 } from '../../domain/keys/x25519.js';
import { generateMldsa65, generateMlkem768 } from '../../domain/keys/pq.js';
import { generateVlessEnc } from '../../domain/keys/vlessenc.js';
import {
  generateEch,
  parseEchConfigList,
  parseEchServerKeys,
  encodeEchConfig,
  ECH_CIPHER_SUITES,
  KEM_X25519_HKDF_SHA256,
} from '../../domain/keys/ech.js';

const B64URL = /^[A-Za-z0-9_-]+$/;
const dec = (s: string) => new Uint8Array(Buffer.from(s, 'base64url'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** The public key node:crypto (OpenSSL) derives from a raw X25519 private key. */
function opensslPublic(priv: Uint8Array): Uint8Array {
  const der = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), Buffer.from(priv)]);
  const jwk = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  return dec(jwk.x!);
}

describe('X25519', () => {
  it('matches the RFC 7748 test vector', async () => {
    const alice = new Uint8Array(
      Buffer.from('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a', 'hex'),
    );
    expect(hex(await x25519PublicKey(alice))).toBe('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
  });

  it('gives 43-character base64url keys without padding, clamped, whose public key belongs to the private key', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const k = await generateX25519();
      for (const v of [k.privateKey, k.publicKey]) {
        expect(v).toHaveLength(43);
        expect(v).toMatch(B64URL);
      }
      const priv = dec(k.privateKey);
      expect(priv).toHaveLength(32);
      expect(hex(clampX25519(priv))).toBe(hex(priv));
      expect(hex(opensslPublic(priv))).toBe(hex(dec(k.publicKey)));
      seen.add(k.privateKey);
    }
    expect(seen.size).toBe(20);
  });
});

describe('ML-DSA-65', () => {
  it('returns seed (32 bytes), public key (1952) and secret key (4032), all base64url', () => {
    const k = generateMldsa65();
    for (const v of Object.values(k)) expect(v).toMatch(B64URL);
    expect(dec(k.seed)).toHaveLength(32);
    expect(k.seed).toHaveLength(43);
    expect(dec(k.publicKey)).toHaveLength(1952);
    expect(dec(k.privateKey)).toHaveLength(4032);
  });

  it('reproduces the same keys from the seed, and they sign and verify', () => {
    const k = generateMldsa65();
    const again = ml_dsa65.keygen(dec(k.seed));
    expect(hex(again.publicKey)).toBe(hex(dec(k.publicKey)));
    expect(hex(again.secretKey)).toBe(hex(dec(k.privateKey)));
    expect(generateMldsa65(dec(k.seed))).toEqual(k);
    const msg = new TextEncoder().encode('reality');
    const sig = ml_dsa65.sign(msg, dec(k.privateKey));
    expect(ml_dsa65.verify(sig, msg, dec(k.publicKey))).toBe(true);
    expect(generateMldsa65().seed).not.toBe(k.seed);
  });

  it('rejects a seed of the wrong length', () => {
    expect(() => generateMldsa65(new Uint8Array(31))).toThrow(/32 bytes/);
  });
});

describe('ML-KEM-768', () => {
  it('returns a 64-byte seed as serverKey and the 1184-byte encapsulation key as clientKey', () => {
    const k = generateMlkem768();
    expect(dec(k.serverKey)).toHaveLength(64);
    expect(k.serverKey).toHaveLength(86);
    expect(dec(k.clientKey)).toHaveLength(1184);
    expect(k.clientKey).toMatch(B64URL);
  });

  it('the client key encapsulates a secret the seed decapsulates', () => {
    const k = generateMlkem768();
    const { secretKey, publicKey } = ml_kem768.keygen(dec(k.serverKey));
    expect(hex(publicKey)).toBe(hex(dec(k.clientKey)));
    const { cipherText, sharedSecret } = ml_kem768.encapsulate(dec(k.clientKey));
    expect(hex(ml_kem768.decapsulate(cipherText, secretKey))).toBe(hex(sharedSecret));
    expect(generateMlkem768(dec(k.serverKey))).toEqual(k);
  });
});

describe('VLESS encryption', () => {
  it('offers X25519 and ML-KEM-768 authentication in native, xorpub and random modes with integer ids', async () => {
    const { auths } = await generateVlessEnc();
    expect(auths.map((a) => a.id)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(auths.map((a) => a.label)).toEqual([
      'X25519, not Post-Quantum',
      'ML-KEM-768, Post-Quantum',
      'X25519, not Post-Quantum (xorpub)',
      'ML-KEM-768, Post-Quantum (xorpub)',
      'X25519, not Post-Quantum (random)',
      'ML-KEM-768, Post-Quantum (random)',
    ]);
    const modes = ['native', 'native', 'xorpub', 'xorpub', 'random', 'random'];
    auths.forEach((a, i) => {
      const d = a.decryption.split('.');
      const e = a.encryption.split('.');
      expect(d.slice(0, 3)).toEqual(['mlkem768x25519plus', modes[i], '600s']);
      expect(e.slice(0, 3)).toEqual(['mlkem768x25519plus', modes[i], '0rtt']);
      expect(d).toHaveLength(4);
      expect(e).toHaveLength(4);
    });
  });

  it('pairs the right keys: X25519 private/public and ML-KEM seed/encapsulation key', async () => {
    const { auths } = await generateVlessEnc();
    const key = (s: string) => dec(s.split('.')[3]!);
    const x = auths[0]!;
    expect(key(x.decryption)).toHaveLength(32);
    expect(hex(opensslPublic(key(x.decryption)))).toBe(hex(key(x.encryption)));
    const pq = auths[1]!;
    expect(key(pq.decryption)).toHaveLength(64);
    expect(hex(ml_kem768.keygen(key(pq.decryption)).publicKey)).toBe(hex(key(pq.encryption)));
    // The other modes reuse the same keys.
    expect(key(auths[2]!.decryption)).toEqual(key(x.decryption));
    expect(key(auths[5]!.encryption)).toEqual(key(pq.encryption));
  });
});

describe('ECH', () => {
  it('encodes an ECHConfigList that parses back to one X25519 config with the SNI as public name', async () => {
    const ech = await generateEch('cdn.Example.com');
    const list = new Uint8Array(Buffer.from(ech.echConfigList, 'base64'));
    expect((list[0]! << 8) | list[1]!).toBe(list.length - 2);
    expect((list[2]! << 8) | list[3]!).toBe(0xfe0d);
    const [cfg, ...rest] = parseEchConfigList(list);
    expect(rest).toHaveLength(0);
    expect(cfg!.publicName).toBe('cdn.example.com');
    expect(cfg!.kemId).toBe(KEM_X25519_HKDF_SHA256);
    expect(cfg!.configId).toBe(0);
    expect(cfg!.publicKey).toHaveLength(32);
    expect(cfg!.cipherSuites).toEqual(ECH_CIPHER_SUITES);
    expect(cfg!.cipherSuites[0]).toEqual({ kdf: 1, aead: 1 }); // HKDF-SHA256 / AES-128-GCM first
    expect(cfg!.maxNameLength).toBe(0);
    expect(cfg!.extensions).toEqual([]);
  });

  it('the server key set holds the private key of that config, in Xray echServerKeys layout', async () => {
    const ech = await generateEch('example.org');
    expect(ech.echServerKeys).toEqual([ech.echKeySet]);
    const keys = parseEchServerKeys(new Uint8Array(Buffer.from(ech.echKeySet, 'base64')));
    expect(keys).toHaveLength(1);
    const { privateKey, config } = keys[0]!;
    expect(privateKey).toHaveLength(32);
    const listed = new Uint8Array(Buffer.from(ech.echConfigList, 'base64')).subarray(2);
    expect(hex(config)).toBe(hex(listed));
    const [cfg] = parseEchConfigList(new Uint8Array([listed.length >> 8, listed.length & 0xff, ...listed]));
    expect(hex(opensslPublic(privateKey))).toBe(hex(cfg!.publicKey));
  });

  it('has the exact byte layout of the draft for a fixed key', () => {
    const bytes = encodeEchConfig({
      configId: 7,
      kemId: 0x20,
      publicKey: new Uint8Array(32).fill(0xab),
      cipherSuites: [{ kdf: 1, aead: 1 }],
      maxNameLength: 0,
      publicName: 'a.io',
      extensions: [],
    });
    const expected = [
      'fe0d',
      '0033', // version, length 51
      '07',
      '0020',
      '0020',
      'ab'.repeat(32), // config id, kem, key length, key
      '0004',
      '00010001', // suites
      '00',
      '04',
      Buffer.from('a.io').toString('hex'),
      '0000', // max name length, public name, no extensions
    ].join('');
    expect(hex(bytes)).toBe(expected);
  });

  it('refuses an SNI that is not a DNS name', async () => {
    for (const bad of ['', 'exa mple.com', '1.2.3.4', '-a.com', 'a'.repeat(64) + '.com']) {
      await expect(generateEch(bad)).rejects.toThrow(/sni/);
    }
  });
});
