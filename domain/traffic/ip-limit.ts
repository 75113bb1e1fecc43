// Per-client source IPs and the IP limit (`limitIp`, 0 = none), as pure functions.

/** An IP counts against a client's limit while it was seen within this window (the access log only records
 * new connections, so a long download is one line at its start). */
export const LIVE_IP_WINDOW_SEC = 300;
/** Recorded IPs not seen for this long are dropped. */
export const IP_RETENTION_SEC = 7 * 86_400;

export interface SeenIp {
  ip: string;
  /** Unix seconds. */
  lastSeen: number;
}

/**
 * The live IPs over a client's limit: the IPs seen within the window, oldest first (ties by address), keep
 * their places up to `limit`; the rest are excess. Only excess IPs in `observedNow` are returned, so each
 * new connection from an excess IP produces one log line (not one per tick).
 */
export function excessIps(
  seen: readonly SeenIp[],
  limit: number,
  nowSec: number,
  observedNow: ReadonlySet<string>,
): string[] {
  if (limit <= 0) return [];
  const live = seen
    .filter((s) => nowSec - s.lastSeen <= LIVE_IP_WINDOW_SEC)
    .sort((a, b) => a.lastSeen - b.lastSeen || (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  return live
    .slice(limit)
    .map((s) => s.ip)
    .filter((ip) => observedNow.has(ip));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY/MM/DD HH:MM:SS` in UTC. */
export function logTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/**
 * One line of the IP-limit log, in the layout the usual fail2ban filters for this kind of panel match:
 * `2026/11/22 01:48:47 [LIMIT_IP] Email = alice || SRC = 203.0.113.9`.
 */
export function ipLimitLine(email: string, ip: string, nowMs: number): string {
  return `${logTime(nowMs)} [LIMIT_IP] Email = ${email} || SRC = ${ip}`;
}

/** The access-log observation format both core flavours are parsed into. */
export interface AccessObservation {
  email: string;
  ip: string;
}
