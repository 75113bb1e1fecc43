// Pure rules about clients: identifiers, per-protocol secrets, Shadowsocks-2022 keys, flow/reverse eligibility,
// status buckets (mirrored in SQL by storage/repos/clients.ts; the unit tests pin both to these definitions).
import type { InboundRecord } from '../inbounds/model.js';
import { flowEligible, ssMethodOf } from '../inbounds/rules.js';
import { base64, fromBase64, randomAlnum, randomBytes, uuidv4 } from '../shared/random.js';
import type { Bucket, BucketParams, ClientRecord, ClientWrite } from './model.js';

export const EMAIL_MAX = 255;
export const NAME_MAX = 64;
export const COMMENT_MAX = 1024;

const FORBIDDEN = /[\s/\\\u0000-\u001f\u007f\u0085\u00a0\u2028\u2029]/u;

/** Email and subId: no whitespace, slashes, backslashes or control characters; not "." or "..". */
export function identifierProblem(field: string, value: string, required: boolean): string | null {
  if (value === '') return required ? `${field}: must not be empty` : null;
  if (value.length > EMAIL_MAX) return `${field}: must be at most ${EMAIL_MAX} characters`;
  if (FORBIDDEN.test(value)) return `${field}: must not contain whitespace, slashes or control characters`;
  if (value === '.' || value === '..') return `${field}: must not be "." or ".."`;
  return null;
}

/** Group names: 1-64 characters, no slashes or control characters, no leading/trailing spaces. */
export function groupNameProblem(field: string, value: string, allowEmpty = false): string | null {
  if (value === '') return allowEmpty ? null : `${field}: must not be empty`;
  if (value.length > NAME_MAX) return `${field}: must be at most ${NAME_MAX} characters`;
  if (/[/\\\u0000-\u001f\u007f]/.test(value)) return `${field}: must not contain slashes or control characters`;
  if (value !== value.trim()) return `${field}: must not start or end with spaces`;
  if (value === '.' || value === '..') return `${field}: must not be "." or ".."`;
  return null;
}

/** Decoded key length a Shadowsocks-2022 cipher needs; 0 for legacy ciphers. */
export function ss2022KeyBytes(method: string): number {
  switch (method) {
    case '2022-blake3-aes-128-gcm':
      return 16;
    case '2022-blake3-aes-256-gcm':
    case '2022-blake3-chacha20-poly1305':
      return 32;
    default:
      return 0;
  }
}

export function validSs2022Key(method: string, key: string): boolean {
  const n = ss2022KeyBytes(method);
  if (n === 0) return key !== '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || key.length % 4 !== 0) return false;
  try {
    return fromBase64(key).length === n;
  } catch {
    return false;
  }
}

export const randomPassword = (): string => randomAlnum(24);
export const randomSubId = (): string => randomAlnum(16).toLowerCase();
export const ss2022Key = (method: string): string => base64(randomBytes(ss2022KeyBytes(method)));

type InboundLike = Pick<InboundRecord, 'protocol' | 'settings' | 'streamSettings'>;

/**
 * Fills what the attached inbounds need and drops what none of them can use:
 * - uuid for VLESS/VMess, password for Trojan/Shadowsocks, auth for Hysteria (generated when missing);
 * - Shadowsocks-2022: the password must be a base64 key of the cipher's exact length (invalid → replaced);
 * - legacy Shadowsocks: `method` copied from the inbound;
 * - flow kept only when some inbound is VLESS/Trojan on TCP with tls/reality; reverse only with a VLESS inbound.
 */
export function applyProtocolRules<
  T extends Pick<ClientWrite, 'uuid' | 'password' | 'auth' | 'flow' | 'method' | 'reverse' | 'security'>,
>(client: T, inbounds: InboundLike[]): T {
  const out = { ...client };
  const protos = new Set(inbounds.map((i) => i.protocol));
  if ((protos.has('vless') || protos.has('vmess')) && !out.uuid) out.uuid = uuidv4();
  if (protos.has('vmess') && !out.security) out.security = 'auto';
  if ((protos.has('trojan') || protos.has('shadowsocks')) && !out.password) out.password = randomPassword();
  if ((protos.has('hysteria') || protos.has('hysteria2')) && !out.auth) out.auth = randomPassword();
  const ss = inbounds.find((i) => i.protocol === 'shadowsocks');
  if (ss) {
    const method = ssMethodOf(ss as InboundRecord);
    if (ss2022KeyBytes(method) > 0) {
      if (!validSs2022Key(method, out.password)) out.password = ss2022Key(method);
      out.method = '';
    } else {
      out.method = method;
    }
  } else {
    out.method = '';
  }
  if (!inbounds.some((i) => flowEligible(i.protocol, i.streamSettings))) out.flow = '';
  if (!protos.has('vless')) out.reverse = null;
  return out;
}

/** The client as written into one inbound (flow dropped where that inbound cannot use it). */
export const flowFor = (client: Pick<ClientRecord, 'flow'>, ib: InboundLike): string =>
  flowEligible(ib.protocol, ib.streamSettings) ? client.flow : '';

// ---- status buckets -------------------------------------------------------------------------------------------

export interface StatusInput {
  enable: boolean;
  totalGB: number;
  expiryTime: number;
  up: number;
  down: number;
  /** client_traffics.enable: false = auto-disabled by the panel. */
  trafficEnable: boolean;
  lastOnline: number;
}

/** Auto-disabled by the panel, or quota used up, or expiry passed (negative expiry = delayed start: never). */
export function isDepleted(c: StatusInput, p: BucketParams): boolean {
  const used = c.up + c.down;
  return (
    (!c.enable && !c.trafficEnable) ||
    (c.totalGB > 0 && used >= c.totalGB) ||
    (c.expiryTime > 0 && c.expiryTime <= p.now)
  );
}

/** Close to the end: expiry within expireDiff, or remaining quota below trafficDiff. */
export function isNearDepletion(c: StatusInput, p: BucketParams): boolean {
  const used = c.up + c.down;
  return (
    (c.expiryTime > 0 && c.expiryTime - p.now < p.expireDiffMs) ||
    (c.totalGB > 0 && c.totalGB - used < p.trafficDiffBytes)
  );
}

/**
 * Whether a client matches a filter bucket (the paged list's `filter`):
 * - depleted: auto-disabled, quota used up, or expired;
 * - deactive: disabled and not depleted (operator-disabled);
 * - active: enabled and not depleted (includes expiring, as the reference filter does);
 * - expiring: enabled, not depleted, near depletion;
 * - online: enabled and seen within the online window.
 */
export function inBucket(b: Bucket, c: StatusInput, p: BucketParams): boolean {
  const depleted = isDepleted(c, p);
  switch (b) {
    case 'depleted':
      return depleted;
    case 'deactive':
      return !c.enable && !depleted;
    case 'active':
      return c.enable && !depleted;
    case 'expiring':
      return c.enable && !depleted && isNearDepletion(c, p);
    case 'online':
      return c.enable && c.lastOnline >= p.onlineSince;
  }
}

/** The summary partitions clients: active (not expiring) + expiring + depleted + deactive = total. */
export function summaryBucket(c: StatusInput, p: BucketParams): 'active' | 'expiring' | 'depleted' | 'deactive' {
  if (isDepleted(c, p)) return 'depleted';
  if (!c.enable) return 'deactive';
  return isNearDepletion(c, p) ? 'expiring' : 'active';
}

/** delDepleted: depleted clients, except quota-only depletion of clients on a periodic reset (they renew). */
export function deletableWhenDepleted(c: StatusInput & { reset: number }, p: BucketParams): boolean {
  if (c.expiryTime > 0 && c.expiryTime <= p.now) return true;
  return c.reset === 0 && isDepleted(c, p);
}

/** The window that defines an online client (seconds since the last counted traffic). */
export const ONLINE_WINDOW_SECONDS = 20;
