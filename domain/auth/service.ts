// Login, sessions, CSRF and the admin credential.
import { verify as verifyTotp } from 'otplib';
import type { Store } from '../ports/store.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { base64, randomAlnum, randomBytes } from '../shared/random.js';
import type { SettingsService } from '../settings/service.js';
import { parseCidrList, resolveClientIp, type Cidr, type ForwardedHeaders } from './cidr.js';
import { constantTimeEqual, hashPassword, verifyPassword } from './password.js';
import { SessionSigner, type SessionClaims } from './session.js';
import { LoginThrottle } from './throttle.js';

/** The one failure message of a login, whatever was wrong (user, password, 2FA code, or throttled). */
export const LOGIN_FAILED = 'wrong username or password';
const USER_CACHE_MS = 1000;
/** The key of the settings page's two-factor codes in their own throttle (one admin, one key). */
const TWO_FACTOR_PEER = 'two-factor';
/** A hash of nothing, verified when the username is unknown so timing does not reveal valid usernames. */
const DUMMY_HASH = 'pbkdf2-sha256$600000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export interface LoginInput {
  username: string;
  password: string;
  twoFactorCode?: string;
  /** The client address (see `clientIp`). */
  ip: string;
}

export type LoginOutcome = 'ok' | 'throttled' | 'bad-credentials' | 'bad-2fa';

export class AuthService {
  private signer: SessionSigner | null = null;
  private throttle: LoginThrottle;
  /** Wrong codes when turning two-factor on or off: the login limits, apart from the login's own counters. */
  private codeThrottle: LoginThrottle;
  private userCache: { at: number; id: number; ver: number } | null = null;
  /** Logged-out session ids until their expiry (in memory: a restart forgets them, the tokens still expire). */
  private revoked = new Map<string, number>();
  private trusted: { text: string; cidrs: Cidr[] } = { text: '', cidrs: [] };

  constructor(
    private store: Store,
    private settings: SettingsService,
    private clock: Clock,
  ) {
    this.throttle = new LoginThrottle(clock);
    this.codeThrottle = new LoginThrottle(clock);
  }

  /** Loads (or creates on first start) the session signing secret. */
  async init(): Promise<void> {
    let secret = (await this.settings.internal('sessionSecret')) as string | undefined;
    if (!secret) {
      secret = base64(randomBytes(32));
      await this.settings.setInternal('sessionSecret', secret);
    }
    this.signer = new SessionSigner(secret, this.clock);
  }

  private get sessions(): SessionSigner {
    if (!this.signer) throw new Error('AuthService.init() was not called');
    return this.signer;
  }

  /**
   * First start: creates the admin from the given credential, or `admin` with a random password that the
   * caller prints once. Does nothing when an admin exists.
   */
  async ensureAdmin(
    username?: string,
    password?: string,
  ): Promise<{ created: boolean; username: string; generatedPassword?: string }> {
    const existing = await this.store.users.first();
    if (existing) return { created: false, username: existing.username };
    const name = username?.trim() || 'admin';
    const generated = password ? undefined : randomAlnum(20);
    await this.store.users.create(name, await hashPassword(password ?? generated!));
    return { created: true, username: name, generatedPassword: generated };
  }

  /** Sets the admin credential (creating the admin if missing); every session is invalidated. */
  async setAdmin(username: string, password: string): Promise<void> {
    checkCredential(username, password, '');
    const hash = await hashPassword(password);
    const user = await this.store.users.first();
    if (user) await this.store.users.setCredential(user.id, username.trim(), hash);
    else await this.store.users.create(username.trim(), hash);
    this.userCache = null;
  }

  async twoFactorEnabled(): Promise<boolean> {
    const s = await this.settings.effective();
    return s.twoFactorEnable && !!s.twoFactorToken;
  }

  /**
   * The client address of a request: the peer, unless the peer is inside `trustedProxyCIDRs`, in which case
   * X-Forwarded-For / X-Real-IP are believed (see domain/auth/cidr.ts).
   */
  async clientIp(peer: string, headers: ForwardedHeaders): Promise<string> {
    const { trustedProxyCIDRs } = await this.settings.effective();
    if (this.trusted.text !== trustedProxyCIDRs)
      this.trusted = { text: trustedProxyCIDRs, cidrs: parseCidrList(trustedProxyCIDRs).cidrs };
    return resolveClientIp(peer, headers, this.trusted.cidrs);
  }

  /** Returns a session token, or throws the one failure message whatever was wrong (`code` says what, for logs). */
  async login(input: LoginInput): Promise<string> {
    const { username, password, ip } = input;
    if (this.throttle.isBlocked(ip, username)) throw new DomainError(LOGIN_FAILED, 'throttled' satisfies LoginOutcome);
    const user = await this.store.users.first();
    const enc = new TextEncoder();
    const nameOk = !!user && constantTimeEqual(enc.encode(user.username), enc.encode(username));
    // Hash even when the username is wrong, so response time does not reveal valid usernames.
    const passwordOk = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
    let outcome: LoginOutcome = nameOk && passwordOk ? 'ok' : 'bad-credentials';
    if (outcome === 'ok' && (await this.twoFactorEnabled()) && !(await this.checkTotp(input.twoFactorCode ?? '')))
      outcome = 'bad-2fa';
    if (outcome !== 'ok' || !user) {
      this.throttle.recordFailure(ip, username);
      throw new DomainError(LOGIN_FAILED, outcome);
    }
    this.throttle.recordSuccess(ip, username);
    return this.issue(user.id, user.sessionVersion);
  }

  private async checkTotp(code: string): Promise<boolean> {
    return this.totpValid((await this.settings.effective()).twoFactorToken, code);
  }

  private async totpValid(secret: string, code: string): Promise<boolean> {
    const token = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(token)) return false;
    try {
      // One 30-second step of tolerance either way for clock drift.
      const result = await verifyTotp({
        secret,
        token,
        epoch: Math.floor(this.clock.now() / 1000),
        epochTolerance: 30,
      });
      return result.valid === true;
    } catch {
      return false;
    }
  }

  /**
   * Turns two-factor login on with `secret` (base32, already parsed by `twoFactorEnableBody`) once `code` proves
   * an authenticator app holds it. Refused while it is on (turn it off first, with a code of the current secret),
   * so a session alone cannot replace the secret silently. Wrong codes are throttled like logins.
   */
  async enableTwoFactor(secret: string, code: string): Promise<void> {
    if (await this.twoFactorEnabled())
      throw new DomainError('twoFactor: two-factor login is already on; turn it off first');
    await this.checkEnrolmentCode(secret, code);
    await this.settings.update({ twoFactorEnable: true, twoFactorToken: secret });
  }

  /** Turns two-factor login off once `code` matches the stored secret (throttled like logins). */
  async disableTwoFactor(code: string): Promise<void> {
    if (!(await this.twoFactorEnabled())) throw new DomainError('twoFactor: two-factor login is not on');
    await this.checkEnrolmentCode((await this.settings.effective()).twoFactorToken, code);
    await this.settings.update({ twoFactorEnable: false, twoFactorToken: '' });
  }

  private async checkEnrolmentCode(secret: string, code: string): Promise<void> {
    if (this.codeThrottle.isBlocked(TWO_FACTOR_PEER, TWO_FACTOR_PEER))
      throw new DomainError('code: too many wrong codes; wait 15 minutes and try again');
    if (!(await this.totpValid(secret, code))) {
      this.codeThrottle.recordFailure(TWO_FACTOR_PEER, TWO_FACTOR_PEER);
      throw new DomainError('code: wrong code; enter the 6 digits the authenticator app shows now');
    }
    this.codeThrottle.recordSuccess(TWO_FACTOR_PEER, TWO_FACTOR_PEER);
  }

  private async issue(uid: number, ver: number): Promise<string> {
    const { sessionMaxAge } = await this.settings.effective();
    return this.sessions.issue(uid, ver, sessionMaxAge);
  }

  /** The session behind a cookie value, or null when it is invalid, expired, logged out or from an older credential. */
  async session(token: string | undefined): Promise<SessionClaims | null> {
    if (!token) return null;
    const claims = await this.sessions.verify(token);
    if (!claims || this.revoked.has(claims.sid)) return null;
    const now = this.clock.now();
    if (!this.userCache || Math.abs(now - this.userCache.at) > USER_CACHE_MS || this.userCache.id !== claims.uid) {
      const user = await this.store.users.byId(claims.uid);
      if (!user) return null;
      this.userCache = { at: now, id: user.id, ver: user.sessionVersion };
    }
    if (this.userCache.ver !== claims.ver) return null;
    return claims;
  }

  /** Ends a session: the token is refused from now on, even if a copy of the cookie survives. */
  async logout(token: string | undefined): Promise<void> {
    const claims = token ? await this.sessions.verify(token) : null;
    if (!claims) return;
    const now = Math.floor(this.clock.now() / 1000);
    for (const [sid, exp] of this.revoked) if (exp <= now) this.revoked.delete(sid);
    this.revoked.set(claims.sid, claims.exp);
  }

  csrfToken(claims: SessionClaims): Promise<string> {
    return this.sessions.csrfToken(claims.sid);
  }

  async checkCsrf(claims: SessionClaims, header: string | undefined): Promise<boolean> {
    if (!header) return false;
    const expected = new TextEncoder().encode(await this.csrfToken(claims));
    return constantTimeEqual(expected, new TextEncoder().encode(header.trim()));
  }

  /** Changes the credential after checking the current one; returns a fresh session for the caller. */
  async updateUser(
    uid: number | undefined,
    input: { oldUsername: string; oldPassword: string; newUsername: string; newPassword: string },
  ): Promise<string> {
    const user = uid === undefined ? await this.store.users.first() : await this.store.users.byId(uid);
    const passwordOk = await verifyPassword(input.oldPassword, user?.passwordHash ?? DUMMY_HASH);
    if (!user || user.username !== input.oldUsername || !passwordOk) {
      throw new DomainError('oldPassword: the current username or password is wrong');
    }
    checkCredential(input.newUsername, input.newPassword, 'new');
    const updated = await this.store.users.setCredential(
      user.id,
      input.newUsername.trim(),
      await hashPassword(input.newPassword),
    );
    this.userCache = null;
    return this.issue(updated.id, updated.sessionVersion);
  }
}

/** The rules for a credential, shared by /updateUser and the CLI's `admin`. */
function checkCredential(username: string, password: string, prefix: '' | 'new'): void {
  const u = prefix ? 'newUsername' : 'username';
  const p = prefix ? 'newPassword' : 'password';
  const name = username.trim();
  if (!name) throw new DomainError(`${u}: must not be empty`);
  if (name.length > 64) throw new DomainError(`${u}: must be at most 64 characters`);
  if (/[\s\u0000-\u001f]/.test(name)) throw new DomainError(`${u}: must not contain spaces or control characters`);
  if (!password) throw new DomainError(`${p}: must not be empty`);
  if (password.length > 1024) throw new DomainError(`${p}: must be at most 1024 characters`);
}
