// Login throttling: 5 failures within 5 minutes for one (client IP, username) block that pair for 15 minutes.
// Kept in memory (a restart forgets it), bounded in size so a flood of distinct pairs cannot exhaust memory.
import type { Clock } from '../shared/clock.js';

export const THROTTLE_WINDOW_MS = 5 * 60_000;
export const THROTTLE_BLOCK_MS = 15 * 60_000;
export const THROTTLE_MAX_FAILURES = 5;
const MAX_TRACKED = 10_000;

interface Entry { failures: number[]; blockedUntil: number }

export class LoginThrottle {
  private entries = new Map<string, Entry>();
  constructor(private clock: Clock, private maxTracked = MAX_TRACKED) {}

  private key = (ip: string, username: string) => `${ip}\u0000${username}`;

  isBlocked(ip: string, username: string): boolean {
    const e = this.entries.get(this.key(ip, username));
    return !!e && e.blockedUntil > this.clock.now();
  }

  recordFailure(ip: string, username: string): void {
    const now = this.clock.now();
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
