// Session tokens (HS256 JWT via jose) and the CSRF token bound to a session.
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../shared/clock.js';
import { base64url, fromBase64, randomAlnum } from '../shared/random.js';

export interface SessionClaims {
  uid: number;
  /** The user's session version when the session was issued. */
  ver: number;
  /** Session id; the CSRF token is derived from it. */
  sid: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

export class SessionSigner {
  private key: Uint8Array;
  private hmac: Promise<CryptoKey> | null = null;

  constructor(
    secretBase64: string,
    private clock: Clock,
  ) {
    this.key = fromBase64(secretBase64);
  }

  async issue(uid: number, ver: number, maxAgeMinutes: number): Promise<string> {
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({ uid, ver, sid: randomAlnum(24) })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now)
      .setExpirationTime(now + maxAgeMinutes * 60)
      .sign(this.key);
  }

  async verify(token: string): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: new Date(this.clock.now()),
      });
      if (typeof payload.uid !== 'number' || typeof payload.ver !== 'number' || typeof payload.sid !== 'string')
        return null;
      if (typeof payload.exp !== 'number') return null;
      return { uid: payload.uid, ver: payload.ver, sid: payload.sid, exp: payload.exp };
    } catch {
      return null;
    }
  }

  /** HMAC-SHA256 of the session id under the session secret (domain-separated from the JWT signature). */
  async csrfToken(sid: string): Promise<string> {
    this.hmac ??= crypto.subtle.importKey('raw', this.key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    const mac = await crypto.subtle.sign('HMAC', await this.hmac, new TextEncoder().encode(`csrf:${sid}`));
    return base64url(new Uint8Array(mac));
  }
}
