// Enforcement rules as pure functions of a client's numbers and "now" (ms). They are the specification of the
// set-based SQL in storage/repos/traffic.ts; test/storage/traffic-store.test.ts checks the SQL against them at
// the boundaries.

export const DAY_MS = 86_400_000;

/** An email is online while its counters moved within this window. */
export const ONLINE_WINDOW_MS = 20_000;

/** Quota used: a positive quota and up+down at or over it (exactly used counts as used). */
export function quotaExhausted(up: number, down: number, total: number): boolean {
  return total > 0 && up + down >= total;
}

/** Expiry passed: a positive absolute expiry at or before now (0 = none; negative = delayed start, not running). */
export function expiryPassed(expiryTime: number, now: number): boolean {
  return expiryTime > 0 && expiryTime <= now;
}

/** A client the enforcement pass disables (only enabled clients are looked at). */
export function shouldDeplete(
  c: { enable: boolean; up: number; down: number; total: number; expiryTime: number },
  now: number,
): boolean {
  return c.enable && (quotaExhausted(c.up, c.down, c.total) || expiryPassed(c.expiryTime, now));
}

/**
 * Delayed start: a negative expiryTime (minus the duration) becomes an absolute time when the client first
 * moves traffic. Returns the expiry to store, unchanged when it is not a delayed start or nothing moved.
 */
export function startDelayedExpiry(expiryTime: number, moved: boolean, now: number): number {
  return expiryTime < 0 && moved ? now - expiryTime : expiryTime;
}

/**
 * Auto-renew: with a period of `resetDays` > 0 and a passed expiry, the expiry moves forward by the smallest
 * number of whole periods that puts it strictly after now. Returns null when the client does not renew.
 */
export function renewedExpiry(expiryTime: number, resetDays: number, now: number): number | null {
  if (resetDays <= 0 || !expiryPassed(expiryTime, now)) return null;
  const period = resetDays * DAY_MS;
  const periods = Math.floor((now - expiryTime) / period) + 1;
  return expiryTime + periods * period;
}

/** Online: last movement (Unix seconds, 0 never) within the window ending now (ms). */
export function isOnline(lastOnlineSec: number, now: number): boolean {
  return lastOnlineSec > 0 && now - lastOnlineSec * 1000 <= ONLINE_WINDOW_MS;
}
