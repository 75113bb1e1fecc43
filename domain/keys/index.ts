// Generated key material for the server tools endpoints (getNewX25519Cert, getNewmldsa65, getNewmlkem768,
// getNewVlessEnc, getNewEchCert, getNewUUID). Pure: Web Crypto and @noble/post-quantum only.
export { generateX25519, x25519PublicKey, clampX25519 } from './x25519.js';
export { generateMldsa65, generateMlkem768 } from './pq.js';
export { generateVlessEnc, type VlessEncAuth } from './vlessenc.js';
export { generateEch, type GeneratedEch } from './ech.js';
