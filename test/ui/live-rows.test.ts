// The clients page's in-place updates from `client_stats` (traffic deltas) and `traffic` (onlines).
import { describe, expect, it } from 'vitest';
import { applyClientStats, applyOnlines } from '../../ui/src/live-rows.js';
import type { ClientPage, ClientListRow } from '../../domain/clients/model.js';

const row = (email: string, up = 0, down = 0): ClientListRow => ({
  email,
  subId: '',
  enable: true,
  totalGB: 0,
  expiryTime: 0,
  limitIp: 0,
  reset: 0,
  comment: '',
  group: '',
  inboundIds: [1],
  traffic: { up, down, enable: true, lastOnline: 0 },
  createdAt: 0,
  updatedAt: 0,
});
const page = (items: ClientListRow[]): ClientPage => ({
  items,
  total: items.length,
  filtered: items.length,
  page: 1,
  pageSize: 25,
  groups: [],
  summary: {
    total: items.length,
    active: items.length,
    online: [],
    depleted: [],
    expiring: [],
    deactive: [],
    onlineCount: 0,
    depletedCount: 0,
    expiringCount: 0,
    deactiveCount: 0,
  },
});

describe('live rows', () => {
  it('adds the moved traffic to the visible rows only', () => {
    const p = page([row('a', 10, 20), row('b', 1, 1)]);
    const next = applyClientStats(p, [
      { email: 'a', up: 5, down: 7 },
      { email: 'not-shown', up: 100, down: 100 },
    ]);
    expect(next.items.map((c) => [c.email, c.traffic.up, c.traffic.down])).toEqual([
      ['a', 15, 27],
      ['b', 1, 1],
    ]);
    expect(next.items[1]).toBe(p.items[1]); // untouched rows keep their identity
    expect(p.items[0]!.traffic.up).toBe(10); // no mutation
  });

  it('returns the same page when nothing visible moved (no re-render)', () => {
    const p = page([row('a')]);
    expect(applyClientStats(p, [{ email: 'x', up: 1, down: 1 }])).toBe(p);
  });

  it('replaces the online list and its count', () => {
    const next = applyOnlines(page([row('a'), row('b')]), ['b']);
    expect(next.summary.online).toEqual(['b']);
    expect(next.summary.onlineCount).toBe(1);
  });
});
