// VLESS Encryption key pairs as Xray's `vlessenc` produces them: `decryption` (server) and `encryption`
// (client) strings `mlkem768x25519plus.<mode>.<ticket|rtt>.<key>`, with X25519 or ML-KEM-768 authentication.
// The reference panel offers, besides the `native` mode Xray prints, the same keys in `xorpub` and `random`
// modes; we return the same six choices. The ephemeral exchange is post-quantum in every case.
import { base64url } from '../shared/random.js';
import { x25519RawPair } from './x25519.js';
import { mlkem768Raw } from './pq.js';

export interface VlessEncAuth {
  id: number;
  label: string;
  encryption: string;
  decryption: string;
}

const MODES = ['native', 'xorpub', 'random'] as const;

const dot = (...parts: string[]) => parts.join('.');

/** getNewVlessEnc: `{auths}`; ids are positions. Keys are shared between the modes of one authentication. */
export async function generateVlessEnc(): Promise<{ auths: VlessEncAuth[] }> {
  const x = await x25519RawPair();
  const pq = mlkem768Raw();
  const kinds = [
    { label: 'X25519, not Post-Quantum', server: base64url(x.privateKey), client: base64url(x.publicKey) },
    { label: 'ML-KEM-768, Post-Quantum', server: base64url(pq.seed), client: base64url(pq.publicKey) },
  ];
  const auths: VlessEncAuth[] = [];
  for (const mode of MODES) {
    for (const k of kinds) {
      auths.push({
        id: auths.length,
        label: mode === 'native' ? k.label : `${k.label} (${mode})`,
        decryption: dot('mlkem768x25519plus', mode, '600s', k.server),
        encryption: dot('mlkem768x25519plus', mode, '0rtt', k.client),
      });
    }
  }
  return { auths };
}
