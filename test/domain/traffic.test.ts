// Pure traffic rules: counter parsing, delta accounting (backwards, missing, api ignored), enforcement at
// its boundaries, delayed start, auto-renew periods, online window, IP-limit excess.
import { describe, expect, it } from 'vitest';
import { CounterBook, computeDeltas, parseCounterName } from '../../domain/traffic/accounting.js';
import {
  DAY_MS,
  expiryPassed,
  isOnline,
  quotaExhausted,
  renewedExpiry,
  shouldDeplete,
  startDelayedExpiry,
} from '../../domain/traffic/rules.js';
import { excessIps, ipLimitLine, LIVE_IP_WINDOW_SEC } from '../../domain/traffic/ip-limit.js';

const up = (email: string, value: number) => ({ name: `user>>>${email}>>>traffic>>>uplink`, value });
const down = (email: string, value: number) => ({ name: `user>>>${email}>>>traffic>>>downlink`, value });

describe('parseCounterName', () => {
  it.each([
    ['user>>>a@x>>>traffic>>>uplink', { kind: 'user', key: 'a@x', direction: 'up' }],
    ['user>>>a@x>>>traffic>>>downlink', { kind: 'user', key: 'a@x', direction: 'down' }],
    ['inbound>>>in-443>>>traffic>>>uplink', { kind: 'inbound', key: 'in-443', direction: 'up' }],
    ['outbound>>>direct>>>traffic>>>downlink', { kind: 'outbound', key: 'direct', direction: 'down' }],
    ['user>>>a@x>>>online', null],
    ['user>>>>>>traffic>>>uplink', null],
    ['balancer>>>b>>>traffic>>>uplink', null],
    ['user>>>a@x>>>traffic>>>sideways', null],
    ['', null],
  ])('%s', (name, want) => expect(parseCounterName(name)).toEqual(want));
});

describe('delta accounting', () => {
  it('first poll of a core counts everything; later polls count the difference', () => {
    const book = new CounterBook();
    const a = book.diff([up('a', 100), down('a', 1000), { name: 'inbound>>>in1>>>traffic>>>downlink', value: 1000 }]);
    expect(a.deltas).toEqual({
      clients: [{ email: 'a', up: 100, down: 1000 }],
      inbounds: [{ tag: 'in1', up: 0, down: 1000 }],
      outbounds: [],
    });
    a.commit();
    const b = book.diff([up('a', 150), down('a', 1000), { name: 'inbound>>>in1>>>traffic>>>downlink', value: 1000 }]);
    expect(b.deltas).toEqual({ clients: [{ email: 'a', up: 50, down: 0 }], inbounds: [], outbounds: [] });
  });

  it('a counter that goes backwards (core restarted) counts from zero', () => {
    const book = new CounterBook();
    book.diff([up('a', 5000), down('a', 7000)]).commit();
    const r = book.diff([up('a', 30), down('a', 7001)]);
    expect(r.deltas.clients).toEqual([{ email: 'a', up: 30, down: 1 }]);
  });

  it('a missing counter moved nothing and keeps its baseline', () => {
    const book = new CounterBook();
    book.diff([up('a', 10), up('b', 20)]).commit();
    const gone = book.diff([up('b', 25)]);
    expect(gone.deltas.clients).toEqual([{ email: 'b', up: 5, down: 0 }]);
    gone.commit();
    expect(book.baseline('user>>>a>>>traffic>>>uplink')).toBe(10);
    // When it reappears higher, only the difference counts; no double counting.
    expect(book.diff([up('a', 12), up('b', 25)]).deltas.clients).toEqual([{ email: 'a', up: 2, down: 0 }]);
  });

  it('the api inbound (and unknown counters) are ignored', () => {
    const book = new CounterBook();
    const r = book.diff([
      { name: 'inbound>>>api>>>traffic>>>uplink', value: 999 },
      { name: 'inbound>>>api>>>traffic>>>downlink', value: 999 },
      { name: 'user>>>a>>>online', value: 3 },
      { name: 'outbound>>>api>>>traffic>>>uplink', value: 7 },
    ]);
    expect(r.deltas).toEqual({ clients: [], inbounds: [], outbounds: [{ tag: 'api', up: 7, down: 0 }] });
    expect(
      new CounterBook({ apiTag: 'panel-api' }).diff([{ name: 'inbound>>>panel-api>>>traffic>>>uplink', value: 5 }])
        .deltas.inbounds,
    ).toEqual([]);
  });

  it('without commit (the write failed) the next poll counts the same bytes again, once', () => {
    const book = new CounterBook();
    book.diff([up('a', 100)]).commit();
    expect(book.diff([up('a', 150)]).deltas.clients).toEqual([{ email: 'a', up: 50, down: 0 }]); // not committed
    const retry = book.diff([up('a', 180)]);
    expect(retry.deltas.clients).toEqual([{ email: 'a', up: 80, down: 0 }]);
    retry.commit();
    expect(book.diff([up('a', 180)]).deltas.clients).toEqual([]);
  });

  it('reset() forgets a previous core process', () => {
    const book = new CounterBook();
    book.diff([up('a', 1000)]).commit();
    book.reset();
    expect(book.diff([up('a', 1200)]).deltas.clients).toEqual([{ email: 'a', up: 1200, down: 0 }]);
  });

  it('ignores negative and non-numeric values', () => {
    expect(new CounterBook().diff([up('a', -5), up('b', Number.NaN)]).deltas.clients).toEqual([]);
  });

  it('computeDeltas is the same rule as a pure function of baselines', () => {
    const base = new Map([
      ['user>>>a>>>traffic>>>uplink', 100],
      ['user>>>gone>>>traffic>>>uplink', 7],
    ]);
    const r = computeDeltas([up('a', 40), down('a', 10), { name: 'inbound>>>api>>>traffic>>>uplink', value: 5 }], base);
    expect(r.deltas.clients).toEqual([{ email: 'a', up: 40, down: 10 }]);
    expect(r.baselines.get('user>>>a>>>traffic>>>uplink')).toBe(40);
    expect(r.baselines.get('user>>>gone>>>traffic>>>uplink')).toBe(7);
  });
});

describe('enforcement rules', () => {
  const now = Date.UTC(2026, 10, 22, 12);
  it.each([
    [60, 40, 100, true],
    [60, 39, 100, false],
    [0, 0, 0, false],
    [1e15, 0, 0, false],
    [0, 101, 100, true],
  ])('quota: up %d + down %d against %d → %s', (u, d, total, want) => expect(quotaExhausted(u, d, total)).toBe(want));

  it.each([
    [now, true],
    [now - 1, true],
    [now + 1, false],
    [0, false],
    [-DAY_MS, false],
  ])('expiry %d passed → %s', (expiry, want) => expect(expiryPassed(expiry, now)).toBe(want));

  it('only enabled clients are depleted', () => {
    expect(shouldDeplete({ enable: true, up: 1, down: 0, total: 1, expiryTime: 0 }, now)).toBe(true);
    expect(shouldDeplete({ enable: false, up: 1, down: 0, total: 1, expiryTime: 0 }, now)).toBe(false);
    expect(shouldDeplete({ enable: true, up: 0, down: 0, total: 0, expiryTime: now }, now)).toBe(true);
  });

  it('delayed start becomes now + duration on the first movement only', () => {
    expect(startDelayedExpiry(-3 * DAY_MS, true, now)).toBe(now + 3 * DAY_MS);
    expect(startDelayedExpiry(-3 * DAY_MS, false, now)).toBe(-3 * DAY_MS);
    expect(startDelayedExpiry(now + 5, true, now)).toBe(now + 5);
    expect(startDelayedExpiry(0, true, now)).toBe(0);
  });

  it.each([
    ['exactly now, 1 day', now, 1, now + DAY_MS],
    ['1 ms ago, 30 days', now - 1, 30, now - 1 + 30 * DAY_MS],
    ['exactly 2 periods ago', now - 14 * DAY_MS, 7, now + 7 * DAY_MS],
    ['2.5 periods ago', now - 17.5 * DAY_MS, 7, now + 3.5 * DAY_MS],
  ])('auto-renew: %s', (_label, expiry, days, want) => {
    const r = renewedExpiry(expiry, days, now);
    expect(r).toBe(want);
    expect(r!).toBeGreaterThan(now);
    expect((r! - expiry) % (days * DAY_MS)).toBe(0);
  });

  it('no auto-renew without a period, before expiry, or for delayed/none', () => {
    expect(renewedExpiry(now - 1, 0, now)).toBeNull();
    expect(renewedExpiry(now + 1, 7, now)).toBeNull();
    expect(renewedExpiry(-DAY_MS, 7, now)).toBeNull();
    expect(renewedExpiry(0, 7, now)).toBeNull();
  });

  it('online means moved within the last 20 seconds', () => {
    const sec = Math.floor(now / 1000);
    expect(isOnline(sec - 20, now)).toBe(true);
    expect(isOnline(sec - 21, now)).toBe(false);
    expect(isOnline(0, now)).toBe(false);
  });
});

describe('IP limit', () => {
  const nowSec = 1_800_000_000;
  it('IPs beyond the limit, newest last, are excess when seen now', () => {
    const seen = [
      { ip: '198.51.100.1', lastSeen: nowSec - 100 },
      { ip: '198.51.100.2', lastSeen: nowSec - 50 },
      { ip: '198.51.100.3', lastSeen: nowSec },
      { ip: '198.51.100.9', lastSeen: nowSec - LIVE_IP_WINDOW_SEC - 1 },
    ];
    expect(excessIps(seen, 2, nowSec, new Set(['198.51.100.3']))).toEqual(['198.51.100.3']);
    expect(excessIps(seen, 3, nowSec, new Set(['198.51.100.3']))).toEqual([]);
    expect(excessIps(seen, 1, nowSec, new Set(['198.51.100.3', '198.51.100.1']))).toEqual(['198.51.100.3']);
    expect(excessIps(seen, 0, nowSec, new Set(['198.51.100.3']))).toEqual([]);
    // Not seen in this batch: no new line.
    expect(excessIps(seen, 1, nowSec, new Set())).toEqual([]);
  });

  it('formats one fail2ban-friendly line per IP', () => {
    expect(ipLimitLine('alice@x', '203.0.113.9', Date.UTC(2026, 10, 22, 1, 48, 47))).toBe(
      '2026/11/22 01:48:47 [LIMIT_IP] Email = alice@x || SRC = 203.0.113.9',
    );
  });
});
