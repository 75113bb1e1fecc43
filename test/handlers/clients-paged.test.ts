import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { call, createTestApp, login, type Session, type TestApp } from '../support/app.js';
import { FULL_REBUILD_MS } from '../../domain/clients/catalog-cache.js';

const I = '/panel/api/inbounds';
const C = '/panel/api/clients';
const DAY = 86_400_000;

describe.each(testDatabases())('clients list/paged and status buckets on $name', (db) => {
  let t: TestApp;
  let s: Session;
  let now = 0;
  let t0 = 0;
  let A = 0;
  let B = 0;
  const post = (path: string, body?: unknown) => call(t, 'POST', path, body, s);
  const paged = async (q: string) => {
    const r = await call(t, 'GET', `${C}/list/paged${q ? `?${q}` : ''}`, undefined, s);
    expect(r.json.success, r.json.msg).toBe(true);
    return r.json.obj;
  };
  const emails = (o: any) => o.items.map((i: any) => i.email);
  /** Counters moved as the traffic job moves them: stored, then announced. */
  const moveCounters = async (clients: { email: string; up: number; down: number }[], at = t.clock.now()) => {
    await t.store.traffic.applyDeltas({ clients, inbounds: [], outbounds: [] }, at);
    t.events.emit('traffic.tick', { at, inbounds: [], outbounds: [], clients, onlines: [] });
  };
  /** Retries `check` (failed expectations included) until it passes or 2 s have gone by. */
  const eventually = async <T>(check: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + 2000;
    for (;;) {
      try {
        return await check();
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };

  beforeAll(async () => {
    t = await createTestApp(db);
    s = await login(t);
    now = t.clock.now();
    t0 = now;
    A = (await post(`${I}/add`, { port: 41001, protocol: 'vless', streamSettings: { network: 'ws' } })).json.obj.id;
    B = (await post(`${I}/add`, { port: 41002, protocol: 'vmess', streamSettings: { network: 'tcp' } })).json.obj.id;
    // explicit subIds: a generated one is random letters and digits, which a short search needle can hit by chance
    let n = 0;
    const add = async (client: Record<string, unknown>, ids = [A]) => {
      const r = await post(`${C}/add`, { client: { subId: `s${++n}`, ...client }, inboundIds: ids });
      expect(r.json.success, r.json.msg).toBe(true);
    };
    // in id order
    await add({ email: 'act@x', comment: 'Plain Active', subId: 'SUBACT' });
    await add({ email: 'quota-exact@x', totalGB: 1000 });
    await add({ email: 'quota-under@x', totalGB: 1000 });
    await add({ email: 'exp-now@x', expiryTime: now });
    await add({ email: 'exp-later@x', expiryTime: now + 1 });
    await add({ email: 'exp-day@x', expiryTime: now + DAY });
    await add({ email: 'delayed@x', expiryTime: -3 * DAY });
    await add({ email: 'off@x', enable: false }, [A, B]);
    await add({ email: 'auto@x', totalGB: 10 });
    await add({ email: 'on@x', comment: '100% online' }, [B]);
    await add({ email: 'Under_score@x', group: 'G1' }, [A, B]);
    await post(`${C}/groups/create`, { name: 'empty-g' });
    await moveCounters(
      [
        { email: 'quota-exact@x', up: 600, down: 400 },
        { email: 'quota-under@x', up: 500, down: 499 },
        { email: 'auto@x', up: 10, down: 0 },
        { email: 'on@x', up: 3, down: 4 },
      ],
      now,
    );
    // the traffic job auto-disables auto@x (and the other exhausted clients) and says so; then nobody is online any
    // more but on@x
    const enforced = await t.store.traffic.enforce(now);
    t.events.emit('clients.changed', { emails: enforced.depleted, action: 'depleted' });
    t.clock.advance(30_000);
    now = t.clock.now();
    await moveCounters([{ email: 'on@x', up: 1, down: 1 }], now);
  });
  afterAll(async () => {
    await t.close();
  });

  it('summary partitions the clients; lists are exact at the boundaries', async () => {
    const o = await paged('');
    expect(o.total).toBe(11);
    expect(o.filtered).toBe(11);
    expect(o.summary).toMatchObject({
      total: 11,
      depleted: ['quota-exact@x', 'exp-now@x', 'exp-later@x', 'auto@x'],
      deactive: ['off@x'],
      expiring: [],
      online: ['on@x'],
      depletedCount: 4,
      deactiveCount: 1,
      expiringCount: 0,
      onlineCount: 1,
    });
    // exp-later (now+1 when created) has passed too after the clock moved 30 s
    expect(o.summary.active).toBe(11 - 4 - 1);
  });

  it('filters by bucket (active includes expiring; deactive excludes depleted; negative expiry is neither)', async () => {
    expect(emails(await paged('filter=depleted'))).toEqual(['quota-exact@x', 'exp-now@x', 'exp-later@x', 'auto@x']);
    expect(emails(await paged('filter=deactive'))).toEqual(['off@x']);
    expect(emails(await paged('filter=online'))).toEqual(['on@x']);
    expect(emails(await paged('filter=active'))).toEqual([
      'act@x',
      'quota-under@x',
      'exp-day@x',
      'delayed@x',
      'on@x',
      'Under_score@x',
    ]);
    expect(emails(await paged('filter=expiring'))).toEqual([]);
    // at the creation instant: expiry exactly now is depleted, one millisecond later is not
    t.clock.set(t0);
    try {
      expect(emails(await paged('filter=depleted'))).toEqual(['quota-exact@x', 'exp-now@x', 'auto@x']);
      expect(emails(await paged('filter=active'))).toContain('exp-later@x');
    } finally {
      t.clock.set(now);
    }
    const auto = (await paged('filter=depleted')).items.find((i: any) => i.email === 'auto@x');
    expect(auto).toMatchObject({ enable: false, traffic: { enable: false } });
  });

  it('expiring follows expireDiff (days) and trafficDiff (GB) with strict boundaries', async () => {
    await t.services.settings.update({ expireDiff: 1, trafficDiff: 1 });
    try {
      const o = await paged('filter=expiring');
      // quota-under: 1 byte left < 1 GB; exp-day: created with now+1 day, 30 s have passed → < 1 day
      expect(emails(o)).toEqual(['quota-under@x', 'exp-day@x']);
      expect(o.summary.expiring).toEqual(['quota-under@x', 'exp-day@x']);
      expect(o.summary.active).toBe(11 - 4 - 1 - 2);
      t.clock.set(t0); // exactly one day before exp-day's expiry: not expiring (strict); exp-later not yet expired
      expect(emails(await paged('filter=expiring'))).toEqual(['quota-under@x', 'exp-later@x']);
    } finally {
      t.clock.set(now);
      await t.services.settings.update({ expireDiff: 0, trafficDiff: 0 });
    }
  });

  it('paging limits: default 25, 0 → 25, 201 → 200, page past the end is empty; summary independent of paging', async () => {
    const base = await paged('');
    expect(base.pageSize).toBe(25);
    expect((await paged('pageSize=0')).pageSize).toBe(25);
    expect((await paged('pageSize=201')).pageSize).toBe(200);
    expect((await paged('pageSize=200')).pageSize).toBe(200);
    const p2 = await paged('page=2&pageSize=3');
    expect(p2.page).toBe(2);
    expect(emails(p2)).toEqual(['exp-now@x', 'exp-later@x', 'exp-day@x']);
    const far = await paged('page=99&pageSize=3');
    expect(far.items).toEqual([]);
    expect(far.filtered).toBe(11);
    expect((await paged('page=0')).page).toBe(1);
    for (const q of ['page=2&pageSize=3', 'filter=deactive', 'search=zzz', 'protocol=vmess&sort=email&order=descend']) {
      expect((await paged(q)).summary, q).toEqual(base.summary);
    }
  });

  it('search is a case-insensitive substring of email, subId and comment; wildcards are literal', async () => {
    expect(emails(await paged('search=ACT'))).toEqual(['act@x', 'quota-exact@x']);
    expect(emails(await paged('search=subact'))).toEqual(['act@x']);
    expect(emails(await paged('search=plain%20active'))).toEqual(['act@x']);
    expect(emails(await paged(`search=${encodeURIComponent('%')}`))).toEqual(['on@x']);
    expect(emails(await paged('search=_'))).toEqual(['Under_score@x']);
    // never across two fields (email "act@x" then subId "SUBACT"), also for a needle holding a control character
    expect(emails(await paged(`search=${encodeURIComponent('@xsub')}`))).toEqual([]);
    expect(emails(await paged(`search=${encodeURIComponent('@x\u0001sub')}`))).toEqual([]);
    const o = await paged('search=quota&filter=depleted');
    expect(emails(o)).toEqual(['quota-exact@x']);
    expect(o.filtered).toBe(1);
    expect(o.total).toBe(11);
  });

  it('inbound filter: only the clients attached to that inbound, combined with the other filters', async () => {
    expect(emails(await paged(`inbound=${B}`))).toEqual(['off@x', 'on@x', 'Under_score@x']);
    expect(emails(await paged(`inbound=${B}&sort=email&order=descend&pageSize=2`))).toEqual(['Under_score@x', 'on@x']);
    expect((await paged(`inbound=${B}&pageSize=2`)).filtered).toBe(3);
    expect(emails(await paged(`inbound=${B}&protocol=trojan`))).toEqual([]);
    expect(emails(await paged(`inbound=${A}&search=quota`))).toEqual(['quota-exact@x', 'quota-under@x']);
    expect(emails(await paged('inbound=999999'))).toEqual([]);
    const bad = await call(t, 'GET', `${C}/list/paged?inbound=abc`, undefined, s);
    expect(bad.json.success).toBe(false);
    expect(bad.json.msg).toMatch(/^inbound: /);
  });

  it('protocol filter and sorting', async () => {
    expect(emails(await paged('protocol=vmess'))).toEqual(['off@x', 'on@x', 'Under_score@x']);
    expect(emails(await paged('protocol=trojan'))).toEqual([]);
    expect(emails(await paged('protocol=vmess&sort=email&order=descend'))).toEqual(['Under_score@x', 'on@x', 'off@x']);
    expect(emails(await paged('protocol=vmess&sort=email'))).toEqual(['off@x', 'on@x', 'Under_score@x']);
    const byTraffic = emails(await paged('sort=traffic&order=descend&pageSize=4'));
    expect(byTraffic).toEqual(['quota-exact@x', 'quota-under@x', 'auto@x', 'on@x']);
    const remaining = emails(await paged('sort=remaining&pageSize=3'));
    expect(remaining).toEqual(['quota-exact@x', 'auto@x', 'quota-under@x']);
    const expiry = emails(await paged('sort=expiryTime&pageSize=3'));
    expect(expiry).toEqual(['exp-now@x', 'exp-later@x', 'exp-day@x']);
    const enable = emails(await paged('sort=enable&pageSize=3'));
    expect(enable).toEqual(['quota-exact@x', 'exp-now@x', 'off@x']);
    const inb = emails(await paged('sort=inboundIds&order=descend&pageSize=2'));
    expect(inb).toEqual(['off@x', 'Under_score@x']);
  });

  it('slim rows carry no secrets; groups include empty ones', async () => {
    const o = await paged('search=act@x');
    const row = o.items[0];
    expect(Object.keys(row).sort()).toEqual(
      [
        'comment',
        'createdAt',
        'email',
        'enable',
        'expiryTime',
        'group',
        'inboundIds',
        'limitIp',
        'reset',
        'subId',
        'totalGB',
        'traffic',
        'updatedAt',
      ].sort(),
    );
    expect(o.groups).toEqual(['empty-g', 'G1']);
  });

  it('bad query parameters answer success=false naming the parameter', async () => {
    for (const [q, field] of [
      ['filter=bogus', 'filter'],
      ['sort=bogus', 'sort'],
      ['order=up', 'order'],
      ['page=abc', 'page'],
      ['pageSize=1.5', 'pageSize'],
      ['protocol=gopher', 'protocol'],
    ]) {
      const r = await call(t, 'GET', `${C}/list/paged?${q}`, undefined, s);
      expect(r.json.success, q).toBe(false);
      expect(r.json.msg.startsWith(`${field}:`), r.json.msg).toBe(true);
    }
  });

  it('delDepleted deletes exactly the depleted clients and returns the count', async () => {
    const r = await post(`${C}/delDepleted`);
    expect(r.json.obj).toEqual({ deleted: 4 });
    const left = (await paged('pageSize=200')).items.map((i: any) => i.email);
    expect(left).toEqual(['act@x', 'quota-under@x', 'exp-day@x', 'delayed@x', 'off@x', 'on@x', 'Under_score@x']);
    const ev = t.emitted.filter((e) => e.name === 'clients.changed').at(-1)!.payload as any;
    expect(ev.action).toBe('delDepleted');
    expect([...ev.emails].sort()).toEqual(['auto@x', 'exp-later@x', 'exp-now@x', 'quota-exact@x']);
    expect((await post(`${C}/delDepleted`)).json.obj).toEqual({ deleted: 0 });
  });

  it('delDepleted keeps a quota-depleted client on periodic reset (it renews)', async () => {
    await post(`${C}/add`, { client: { email: 'renew@x', totalGB: 5, reset: 30 }, inboundIds: [A] });
    await moveCounters([{ email: 'renew@x', up: 5, down: 0 }], now);
    expect(emails(await paged('filter=depleted'))).toEqual(['renew@x']);
    expect((await post(`${C}/delDepleted`)).json.obj).toEqual({ deleted: 0 });
  });

  it('traffic ticks, client mutations and the clock show in the very next page; a full read finds the same', async () => {
    const before = (await paged('')).summary;
    expect(before.online).not.toContain('act@x');
    // act@x comes online: the tick's counters are added in memory, no read
    await moveCounters([{ email: 'act@x', up: 1, down: 1 }]);
    let sum = (await paged('')).summary;
    expect(sum.online).toEqual(['act@x', ...before.online]);
    expect(emails(await paged('filter=online'))).toEqual(['act@x', ...before.online]);
    expect((await paged('sort=traffic&search=act@x')).items[0].traffic).toMatchObject({ up: 1, down: 1 });

    // API mutations show in the very next page (only the changed clients are re-read)
    expect((await post(`${C}/add`, { client: { email: 'late@x' }, inboundIds: [A] })).json.success).toBe(true);
    sum = (await paged('')).summary;
    expect(sum.total).toBe(before.total + 1);
    expect(sum.active).toBe(before.active + 1);
    // quota used up by an update (act@x has used 2 bytes) → depleted at once
    expect((await post(`${C}/update/act@x`, { email: 'act@x', totalGB: 2 })).json.success).toBe(true);
    sum = (await paged('')).summary;
    expect(sum.depleted).toEqual(['act@x', ...before.depleted]);
    expect(sum.depletedCount).toBe(before.depletedCount + 1);
    expect(sum.active).toBe(before.active);
    // a renamed client changes name in its list and keeps its place; a deleted one leaves it
    expect((await post(`${C}/update/off@x`, { email: 'off2@x', enable: false })).json.success).toBe(true);
    sum = (await paged('')).summary;
    expect(sum.deactive).toContain('off2@x');
    expect(sum.deactive).not.toContain('off@x');
    expect(emails(await paged('search=off2@'))).toEqual(['off2@x']);
    expect((await post(`${C}/del/off2@x`)).json.success).toBe(true);
    sum = (await paged('')).summary;
    expect(sum.deactive).not.toContain('off2@x');
    expect(sum.deactiveCount).toBe(before.deactiveCount - 1);
    expect(sum.total).toBe(before.total);

    // the clock alone: an expiry passing, a delayed start beginning, online clients going quiet
    expect(
      (await post(`${C}/add`, { client: { email: 'soon@x', expiryTime: t.clock.now() + 10_000 }, inboundIds: [A] }))
        .json.success,
    ).toBe(true);
    const withSoon = (await paged('')).summary;
    expect(withSoon.depleted).not.toContain('soon@x');
    try {
      t.clock.advance(15_000);
      const later = (await paged('')).summary;
      expect(later.depleted).toContain('soon@x');
      expect(later.depletedCount).toBe(withSoon.depletedCount + 1);
      // delayed@x (expiry -3 days) moves for the first time: its 3 days start now
      await moveCounters([{ email: 'delayed@x', up: 1, down: 0 }]);
      expect((await paged('sort=expiryTime&search=delayed@')).items[0].expiryTime).toBe(t.clock.now() + 3 * DAY);
      expect((await post('/panel/setting/update', { expireDiff: 4 })).json.success).toBe(true);
      expect(emails(await paged('filter=expiring'))).toContain('delayed@x');
      expect((await post('/panel/setting/update', { expireDiff: 0 })).json.success).toBe(true);
      t.clock.advance(30_000); // the online window is 20 s
      expect((await paged('')).summary.online).toEqual([]);
      // and every figure equals a catalog read from scratch
      const kept = await paged('sort=traffic&order=descend&pageSize=200');
      t.events.emit('clients.changed', { emails: 'all', action: 'test' });
      expect(await paged('sort=traffic&order=descend&pageSize=200')).toEqual(kept);
    } finally {
      t.clock.set(now);
    }
  });

  it('a deleted inbound leaves the protocol filter and the attachment counts at once', async () => {
    const T = (await post(`${I}/add`, { port: 41003, protocol: 'trojan', streamSettings: { network: 'tcp' } })).json.obj
      .id;
    expect((await post(`${C}/add`, { client: { email: 'tro@x' }, inboundIds: [A, T] })).json.success).toBe(true);
    expect(emails(await paged('protocol=trojan'))).toEqual(['tro@x']);
    expect(emails(await paged('sort=inboundIds&order=descend&search=tro@'))).toEqual(['tro@x']);
    expect((await post(`${I}/del/${T}`)).json.success).toBe(true);
    expect(emails(await paged('protocol=trojan'))).toEqual([]);
    const o = await paged('search=tro@x');
    expect(o.items[0].inboundIds).toEqual([A]);
    expect((await post(`${C}/del/tro@x`)).json.success).toBe(true);
  });

  it('groups follow client changes: a new label shows at once, a label no client carries any more goes', async () => {
    expect((await post(`${C}/add`, { client: { email: 'grp@x', group: 'Fresh' }, inboundIds: [A] })).json.success).toBe(
      true,
    );
    expect((await paged('')).groups).toEqual(['empty-g', 'Fresh', 'G1']);
    expect((await post(`${C}/update/grp@x`, { email: 'grp@x', group: 'Fresh2' })).json.success).toBe(true);
    expect((await paged('')).groups).toEqual(['empty-g', 'Fresh2', 'G1']);
    expect((await post(`${C}/del/grp@x`)).json.success).toBe(true);
    expect((await paged('')).groups).toEqual(['empty-g', 'G1']);
  });

  it('a write that sends no event (another process) shows after the background backstop read', async () => {
    const before = (await paged('')).summary;
    await t.store.clients.insert(
      {
        email: 'hidden@x',
        subId: 'hidden',
        uuid: '00000000-0000-4000-8000-000000000001',
        password: '',
        auth: '',
        flow: '',
        security: '',
        method: '',
        totalGB: 0,
        expiryTime: 0,
        enable: false,
        limitIp: 0,
        tgId: 0,
        comment: '',
        group: '',
        reverse: null,
        reset: 0,
        createdAt: now,
        updatedAt: now,
      },
      [A],
    );
    expect((await paged('')).summary.deactive).toEqual(before.deactive);
    try {
      t.clock.advance(FULL_REBUILD_MS);
      await paged(''); // answers from the kept catalog and starts reading it again
      await eventually(async () => expect((await paged('')).summary.deactive).toContain('hidden@x'));
    } finally {
      t.clock.set(now);
      expect((await post(`${C}/del/hidden@x`)).json.success).toBe(true);
    }
  });

  it('a settings change that moves the bucket thresholds shows in the next summary', async () => {
    const before = (await paged('')).summary;
    expect(before.expiring).not.toContain('exp-day@x');
    expect((await post('/panel/setting/update', { expireDiff: 2 })).json.success).toBe(true);
    try {
      const o = (await paged('')).summary;
      expect(o.expiring).toContain('exp-day@x');
      const moved = o.expiringCount - before.expiringCount; // exp-day@x, and soon@x of the test before
      expect(moved).toBeGreaterThanOrEqual(1);
      expect(o.active).toBe(before.active - moved);
    } finally {
      expect((await post('/panel/setting/update', { expireDiff: 0 })).json.success).toBe(true);
    }
  });
});

describe.each(testDatabases())('the paged list right after start on $name', (db) => {
  it('finds its catalog already read at start (no full read in the first request)', async () => {
    const t = await createTestApp(db);
    try {
      const full = t.store.clients.catalogBatch.bind(t.store.clients);
      let fullReads = 0;
      t.store.clients.catalogBatch = (from) => {
        fullReads++;
        return full(from);
      };
      const s = await login(t);
      const r = await call(t, 'GET', `${C}/list/paged`, undefined, s);
      expect(r.json.success, r.json.msg).toBe(true);
      expect(r.json.obj.summary.total).toBe(0);
      expect(fullReads).toBe(0);
    } finally {
      await t.close();
    }
  });
});
