// Login throttling, two limits:
// - per (client address, username): 5 failures within 5 minutes block that pair for 15 minutes;
// - per username, whatever the address: after 10 failures in a row, every further failure makes the account wait
//   twice as long before the next attempt (1 s, 2 s, 4 s … up to 15 minutes), so rotating X-Forwarded-For from a
//   trusted proxy, or a botnet, guesses no faster. Failures older than a day are forgotten; a success resets.
// Kept in memory (a restart forgets it), bounded in size so a flood of distinct keys cannot exhaust memory.
import type { Clock } from '../shared/clock.js';

export const THROTTLE_WINDOW_MS = 5 * 60_000;
export const THROTTLE_BLOCK_MS = 15 * 60_000;
export const THROTTLE_MAX_FAILURES = 5;
export const USER_FREE_FAILURES = 10;
export const USER_DELAY_BASE_MS = 1000;
export const USER_DELAY_MAX_MS = 15 * 60_000;
export const USER_FORGET_MS = 24 * 60 * 60_000;
const MAX_TRACKED = 10_000;

interface Entry {
  failures: number[];
  blockedUntil: number;
}
interface UserEntry {
  failures: number;
  lastFailure: number;
  blockedUntil: number;
}

export class LoginThrottle {
  private entries = new Map<string, Entry>();
  private users = new Map<string, UserEntry>();
  constructor(
    private clock: Clock,
    private maxTracked = MAX_TRACKED,
  ) {}

  private key = (ip: string, username: string) => `${ip}\u0000${username}`;

  isBlocked(ip: string, username: string): boolean {
    const now = this.clock.now();
    const e = this.entries.get(this.key(ip, username));
    return (!!e && e.blockedUntil > now) || (this.users.get(username)?.blockedUntil ?? 0) > now;
  }

  recordFailure(ip: string, username: string): void {
    const now = this.clock.now();
    this.recordUserFailure(username, now);
    const k = this.key(ip, username);
    const e = this.entries.get(k) ?? { failures: [], blockedUntil: 0 };
    this.entries.delete(k); // re-inserted below: Map order is then least recently failed first
    e.failures = e.failures.filter((t) => now - t < THROTTLE_WINDOW_MS);
    e.failures.push(now);
    if (e.failures.length >= THROTTLE_MAX_FAILURES) {
      e.blockedUntil = now + THROTTLE_BLOCK_MS;
      e.failures = [];
    }
    if (this.entries.size >= this.maxTracked) this.prune(now);
    this.entries.set(k, e);
  }

  recordSuccess(ip: string, username: string): void {
    this.entries.delete(this.key(ip, username));
    this.users.delete(username);
  }

  private recordUserFailure(username: string, now: number): void {
    const prev = this.users.get(username);
    const u = prev && now - prev.lastFailure < USER_FORGET_MS ? prev : { failures: 0, lastFailure: 0, blockedUntil: 0 };
    this.users.delete(username); // re-inserted below: least recently failed first
    u.failures++;
    u.lastFailure = now;
    const over = u.failures - USER_FREE_FAILURES;
    if (over > 0) u.blockedUntil = now + Math.min(USER_DELAY_BASE_MS * 2 ** Math.min(over - 1, 30), USER_DELAY_MAX_MS);
    if (this.users.size >= this.maxTracked) {
      for (const [k, e] of this.users) {
        if (this.users.size < this.maxTracked) break;
        if (e.blockedUntil <= now) this.users.delete(k);
      }
    }
    this.users.set(username, u);
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(now: number): void {
    for (const [k, e] of this.entries) {
      if (e.blockedUntil <= now && e.failures.every((t) => now - t >= THROTTLE_WINDOW_MS)) this.entries.delete(k);
    }
    // Still full: forget the least recently failed pairs that are not blocked.
    for (const [k, e] of this.entries) {
      if (this.entries.size < this.maxTracked) break;
      if (e.blockedUntil <= now) this.entries.delete(k);
    }
  }
}
