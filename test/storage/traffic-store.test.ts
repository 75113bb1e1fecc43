// The traffic repository on libsql and PostgreSQL: batched deltas, delayed start, enforcement at its boundaries
// (checked against the pure rules), outbound counters and client IPs.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, freshStoreAndConn } from '../support/databases.js';
import type { Connection } from '../../storage/conn.js';
import type { Store } from '../../domain/ports/store.js';
import { eq } from 'drizzle-orm';
import { DAY_MS, renewedExpiry, shouldDeplete } from '../../domain/traffic/rules.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

interface Seed {
  email: string;
  total?: number;
  expiry?: number;
  enable?: boolean;
  trafficEnable?: boolean;
  up?: number;
  down?: number;
  reset?: number;
  limitIp?: number;
}

describe.each(testDatabases())('traffic store on $name', (db) => {
  let store: Store;
  let conn: Connection;
  const opened: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    ({ store, conn } = await freshStoreAndConn(db));
    opened.push(store, conn);
  });
  afterAll(async () => {
    for (const o of opened) await o.close();
  });

  async function seed(all: Seed[]) {
    const { clients, clientTraffics } = conn.t;
    for (let i = 0; i < all.length; i += 500) {
      const rows = all.slice(i, i + 500);
      await conn.write((d) =>
        d.insert(clients).values(
          rows.map((r) => ({
            email: r.email,
            totalGB: r.total ?? 0,
            expiryTime: r.expiry ?? 0,
            enable: r.enable ?? true,
            reset: r.reset ?? 0,
            limitIp: r.limitIp ?? 0,
            createdAt: 1,
            updatedAt: 1,
          })),
        ),
      );
      await conn.write((d) =>
        d.insert(clientTraffics).values(
          rows.map((r) => ({
            email: r.email,
            up: r.up ?? 0,
            down: r.down ?? 0,
            enable: r.trafficEnable ?? r.enable ?? true,
          })),
        ),
      );
    }
  }

  async function inbound(
    tag: string,
    port: number,
    extra: Partial<{ total: number; expiryTime: number; up: number; down: number }> = {},
  ) {
    const [row] = await conn.write((d) =>
      d
        .insert(conn.t.inbounds)
        .values({ tag, port, protocol: 'vless', ...extra })
        .returning(),
    );
    return row!.id;
  }

  async function client(email: string) {
    const [c] = await conn.db.select().from(conn.t.clients).where(eq(conn.t.clients.email, email));
    const [t] = await conn.db.select().from(conn.t.clientTraffics).where(eq(conn.t.clientTraffics.email, email));
    return { ...c!, traffic: t! };
  }

  it('adds client deltas by email in one batch, sets lastOnline in seconds, ignores unknown emails', async () => {
    await seed([{ email: 'a@x', up: 10, down: 20 }, { email: 'b@x' }, { email: 'idle@x', up: 5 }]);
    await store.traffic.applyDeltas(
      {
        clients: [
          { email: 'a@x', up: 100, down: 200 },
          { email: 'b@x', up: 1, down: 0 },
          { email: 'ghost@x', up: 9, down: 9 },
        ],
        inbounds: [],
        outbounds: [],
      },
      NOW + 999,
    );
    const a = await client('a@x');
    expect([a.traffic.up, a.traffic.down, a.traffic.lastOnline]).toEqual([110, 220, Math.floor((NOW + 999) / 1000)]);
    const b = await client('b@x');
    expect([b.traffic.up, b.traffic.down]).toEqual([1, 0]);
    const idle = await client('idle@x');
    expect([idle.traffic.up, idle.traffic.lastOnline]).toEqual([5, 0]);
    const all = await conn.db.select().from(conn.t.clientTraffics);
    expect(all.map((r) => r.email).sort()).toEqual(['a@x', 'b@x', 'idle@x']);
  });

  it('handles large counters and many rows in one call', async () => {
    const n = 2500;
    await seed(Array.from({ length: n }, (_, i) => ({ email: `u${i}@x` })));
    const big = 5_000_000_000_000; // beyond 32 bits
    await store.traffic.applyDeltas(
      {
        clients: Array.from({ length: n }, (_, i) => ({ email: `u${i}@x`, up: big + i, down: i })),
        inbounds: [],
        outbounds: [],
      },
      NOW,
    );
    const rows = await conn.db.select().from(conn.t.clientTraffics);
    expect(rows).toHaveLength(n);
    for (const r of rows) {
      const i = Number(r.email.slice(1, -2));
      expect([r.up, r.down]).toEqual([big + i, i]);
    }
  });

  it('adds inbound deltas by tag and upserts outbound counters', async () => {
    const id = await inbound('in-1', 1001, { up: 5, down: 5 });
    await inbound('in-2', 1002);
    await store.traffic.applyDeltas(
      {
        clients: [],
        inbounds: [
          { tag: 'in-1', up: 10, down: 20 },
          { tag: 'nope', up: 1, down: 1 },
        ],
        outbounds: [{ tag: 'direct', up: 3, down: 4 }],
      },
      NOW,
    );
    await store.traffic.applyDeltas(
      {
        clients: [],
        inbounds: [],
        outbounds: [
          { tag: 'direct', up: 1, down: 1 },
          { tag: 'blocked', up: 0, down: 7 },
        ],
      },
      NOW,
    );
    const ins = await conn.db.select().from(conn.t.inbounds);
    expect(ins.find((r) => r.id === id)).toMatchObject({ up: 15, down: 25 });
    expect(ins.find((r) => r.tag === 'in-2')).toMatchObject({ up: 0, down: 0 });
    expect(await store.traffic.outbounds()).toEqual([
      { tag: 'blocked', up: 0, down: 7, total: 7 },
      { tag: 'direct', up: 4, down: 5, total: 9 },
    ]);
    expect(await store.traffic.resetOutbounds('direct')).toBe(1);
    expect(await store.traffic.outbounds()).toEqual([
      { tag: 'blocked', up: 0, down: 7, total: 7 },
      { tag: 'direct', up: 0, down: 0, total: 0 },
    ]);
    expect(await store.traffic.resetOutbounds('missing')).toBe(0);
    expect(await store.traffic.resetOutbounds('all')).toBe(2);
    expect((await store.traffic.outbounds()).every((r) => r.total === 0)).toBe(true);
  });

  it('delayed start: a negative expiry becomes now + duration only for clients that moved', async () => {
    await seed([
      { email: 'moved@x', expiry: -3 * DAY_MS },
      { email: 'still@x', expiry: -3 * DAY_MS },
      { email: 'abs@x', expiry: NOW + 5 },
    ]);
    await store.traffic.applyDeltas(
      {
        clients: [
          { email: 'moved@x', up: 1, down: 0 },
          { email: 'abs@x', up: 1, down: 1 },
        ],
        inbounds: [],
        outbounds: [],
      },
      NOW,
    );
    expect((await client('moved@x')).expiryTime).toBe(NOW + 3 * DAY_MS);
    expect((await client('still@x')).expiryTime).toBe(-3 * DAY_MS);
    expect((await client('abs@x')).expiryTime).toBe(NOW + 5);
    // A second movement does not move it again.
    await store.traffic.applyDeltas(
      { clients: [{ email: 'moved@x', up: 1, down: 0 }], inbounds: [], outbounds: [] },
      NOW + 60_000,
    );
    expect((await client('moved@x')).expiryTime).toBe(NOW + 3 * DAY_MS);
  });

  it('depletes at the boundaries exactly as the pure rules say', async () => {
    const cases: Seed[] = [
      { email: 'quota-exact@x', total: 100, up: 60, down: 40 },
      { email: 'quota-under@x', total: 100, up: 60, down: 39 },
      { email: 'quota-over@x', total: 100, up: 500, down: 0 },
      { email: 'unlimited@x', total: 0, up: 1e12 },
      { email: 'expiry-now@x', expiry: NOW },
      { email: 'expiry-past@x', expiry: NOW - 1 },
      { email: 'expiry-future@x', expiry: NOW + 1 },
      { email: 'delayed@x', expiry: -DAY_MS },
      { email: 'no-expiry@x', expiry: 0 },
      { email: 'op-disabled-over@x', total: 10, up: 20, enable: false, trafficEnable: true },
    ];
    await seed(cases);
    const r = await store.traffic.enforce(NOW, 'all');
    const expected = cases
      .filter((c) =>
        shouldDeplete(
          {
            enable: c.enable ?? true,
            up: c.up ?? 0,
            down: c.down ?? 0,
            total: c.total ?? 0,
            expiryTime: c.expiry ?? 0,
          },
          NOW,
        ),
      )
      .map((c) => c.email)
      .sort();
    expect(expected).toEqual(['expiry-now@x', 'expiry-past@x', 'quota-exact@x', 'quota-over@x']);
    expect([...r.depleted].sort()).toEqual(expected);
    expect(r.renewed).toEqual([]);
    for (const c of cases) {
      const row = await client(c.email);
      const depleted = expected.includes(c.email);
      expect({ email: c.email, enable: row.enable, traffic: row.traffic.enable }).toEqual({
        email: c.email,
        enable: depleted ? false : (c.enable ?? true),
        traffic: depleted ? false : (c.trafficEnable ?? c.enable ?? true),
      });
    }
    // Nothing changes on the next pass.
    expect(await store.traffic.enforce(NOW, 'all')).toEqual({ depleted: [], renewed: [], inboundsDisabled: [] });
  });

  it('checks quota only for the listed (moved) clients unless asked for all; expiry always for all', async () => {
    await seed([
      { email: 'a@x', total: 10, up: 10 },
      { email: 'b@x', total: 10, up: 11 },
      { email: 'c@x', expiry: NOW - 1 },
      { email: 'fine@x', total: 10, up: 1 },
    ]);
    const r = await store.traffic.enforce(NOW, ['a@x', 'fine@x', 'ghost@x']);
    expect([...r.depleted].sort()).toEqual(['a@x', 'c@x']);
    expect((await client('b@x')).enable).toBe(true);
    expect((await store.traffic.enforce(NOW, [])).depleted).toEqual([]);
    expect((await store.traffic.enforce(NOW, 'all')).depleted).toEqual(['b@x']);
    expect((await client('b@x')).traffic.enable).toBe(false);
  });

  it('keeps odd emails intact through the batched statements', async () => {
    const odd = ['we"ird\\,x@y', "o'neil{1}@x", 'sp ace,@x', 'ünï@x'];
    await seed(odd.map((email) => ({ email, total: 5 })));
    await store.traffic.applyDeltas(
      { clients: odd.map((email) => ({ email, up: 5, down: 1 })), inbounds: [], outbounds: [] },
      NOW,
    );
    for (const email of odd) expect((await client(email)).traffic.up).toBe(5);
    const r = await store.traffic.enforce(NOW, odd);
    expect([...r.depleted].sort()).toEqual([...odd].sort());
    await store.traffic.recordIps(
      odd.map((email) => ({ email, ip: '192.0.2.1' })),
      10,
    );
    expect([...(await store.traffic.ipsOf(odd)).keys()].sort()).toEqual([...odd].sort());
  });

  it('auto-renew moves expiry forward by whole periods past now, zeroes counters and re-enables depleted clients', async () => {
    const cases: Seed[] = [
      {
        email: 'one@x',
        reset: 30,
        expiry: NOW - 1000,
        total: 100,
        up: 100,
        down: 0,
        enable: false,
        trafficEnable: false,
      },
      { email: 'exact@x', reset: 1, expiry: NOW, up: 5 },
      { email: 'many@x', reset: 7, expiry: NOW - 20 * DAY_MS, up: 1, down: 1 },
      { email: 'boundary@x', reset: 7, expiry: NOW - 14 * DAY_MS },
      { email: 'future@x', reset: 7, expiry: NOW + 1, up: 3 },
      { email: 'no-renew@x', reset: 0, expiry: NOW - 1 },
      { email: 'op-off@x', reset: 2, expiry: NOW - 1, up: 9, enable: false, trafficEnable: true },
      { email: 'delayed@x', reset: 2, expiry: -DAY_MS },
    ];
    await seed(cases);
    const r = await store.traffic.enforce(NOW, 'all');
    expect([...r.renewed].sort()).toEqual(['boundary@x', 'exact@x', 'many@x', 'one@x', 'op-off@x']);
    expect(r.depleted).toEqual(['no-renew@x']);
    for (const c of cases) {
      const row = await client(c.email);
      const want = renewedExpiry(c.expiry ?? 0, c.reset ?? 0, NOW);
      if (want === null) continue;
      expect({ email: c.email, expiry: row.expiryTime }).toEqual({ email: c.email, expiry: want });
      expect(row.expiryTime).toBeGreaterThan(NOW);
      expect([row.traffic.up, row.traffic.down, row.traffic.enable]).toEqual([0, 0, true]);
    }
    expect((await client('boundary@x')).expiryTime).toBe(NOW + 7 * DAY_MS);
    expect((await client('many@x')).expiryTime).toBe(NOW + DAY_MS);
    expect((await client('exact@x')).expiryTime).toBe(NOW + DAY_MS);
    expect((await client('one@x')).enable).toBe(true);
    expect((await client('op-off@x')).enable).toBe(false); // operator-disabled stays disabled
    expect((await client('future@x')).traffic.up).toBe(3);
    expect((await client('delayed@x')).expiryTime).toBe(-DAY_MS);
  });

  it('disables inbounds whose own quota is used or expiry passed', async () => {
    const a = await inbound('q', 2001, { total: 10, up: 5, down: 5 });
    await inbound('ok', 2002, { total: 10, up: 5, down: 4 });
    const c = await inbound('exp', 2003, { expiryTime: NOW });
    await inbound('later', 2004, { expiryTime: NOW + 1 });
    const r = await store.traffic.enforce(NOW, 'all');
    expect(r.inboundsDisabled).toEqual([a, c].sort((x, y) => x - y));
    expect((await store.traffic.enforce(NOW, 'all')).inboundsDisabled).toEqual([]);
  });

  it('records client IPs for known clients, reads limits and prunes old rows', async () => {
    await seed([{ email: 'a@x', limitIp: 2 }, { email: 'b@x' }]);
    await store.traffic.recordIps(
      [
        { email: 'a@x', ip: '203.0.113.1' },
        { email: 'a@x', ip: '203.0.113.1' },
        { email: 'ghost@x', ip: '1.1.1.1' },
      ],
      1000,
    );
    await store.traffic.recordIps(
      [
        { email: 'a@x', ip: '2001:db8::1' },
        { email: 'b@x', ip: '198.51.100.4' },
      ],
      2000,
    );
    await store.traffic.recordIps([{ email: 'a@x', ip: '203.0.113.1' }], 3000);
    const ips = await store.traffic.ipsOf(['a@x', 'b@x', 'ghost@x']);
    expect(ips.get('a@x')).toEqual([
      { ip: '2001:db8::1', lastSeen: 2000 },
      { ip: '203.0.113.1', lastSeen: 3000 },
    ]);
    expect(ips.get('b@x')).toEqual([{ ip: '198.51.100.4', lastSeen: 2000 }]);
    expect(ips.has('ghost@x')).toBe(false);
    expect(await store.traffic.ipLimits(['a@x', 'b@x', 'ghost@x'])).toEqual(new Map([['a@x', 2]]));
    expect(await store.traffic.pruneIps(2500)).toBe(2);
    expect((await store.traffic.ipsOf(['a@x', 'b@x'])).get('a@x')).toEqual([{ ip: '203.0.113.1', lastSeen: 3000 }]);
  });
});
