// What a subscription's clients add up to: counters, quota, expiry, state. Feeds the Subscription-Userinfo
// header and the HTML page.
import type { SubscriptionClient } from '../ports/subscription-repo.js';

export interface SubscriptionSummary {
  emails: string[];
  up: number;
  down: number;
  /** Sum of the quotas in bytes; 0 when any client is unlimited. */
  total: number;
  /** Unix seconds of the earliest expiry among the clients that have one; 0 when none has. */
  expire: number;
  /** Some client is enabled. */
  enabled: boolean;
  /** Every client is auto-disabled (quota used or expiry passed). */
  depleted: boolean;
  /** Unix seconds of the latest activity; 0 never. */
  lastOnline: number;
}

/**
 * A client's expiry as absolute ms: positive is absolute, negative is a delayed start (the period has not begun,
 * so it ends that long after now), 0 none.
 */
export const absoluteExpiryMs = (expiryTime: number, nowMs: number): number =>
  expiryTime > 0 ? expiryTime : expiryTime < 0 ? nowMs - expiryTime : 0;

export function summarise(clients: SubscriptionClient[], nowMs: number): SubscriptionSummary {
  let up = 0,
    down = 0,
    total = 0,
    unlimited = clients.length === 0,
    expireMs = 0,
    lastOnline = 0;
  for (const c of clients) {
    up += c.traffic.up;
    down += c.traffic.down;
    if (c.client.totalGB <= 0) unlimited = true;
    else total += c.client.totalGB;
    const e = absoluteExpiryMs(c.client.expiryTime, nowMs);
    if (e > 0 && (expireMs === 0 || e < expireMs)) expireMs = e;
    if (c.traffic.lastOnline > lastOnline) lastOnline = c.traffic.lastOnline;
  }
  return {
    emails: clients.map((c) => c.client.email),
    up,
    down,
    total: unlimited ? 0 : total,
    expire: Math.floor(expireMs / 1000),
    enabled: clients.some((c) => c.client.enable),
    depleted: clients.length > 0 && clients.every((c) => !c.client.enable && !c.traffic.enable),
    lastOnline,
  };
}

export const userinfoHeader = (s: SubscriptionSummary): string =>
  `upload=${s.up}; download=${s.down}; total=${s.total}; expire=${s.expire}`;
