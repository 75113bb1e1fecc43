import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, testDatabases } from '../support/databases.js';
import type { Store } from '../../domain/ports/store.js';
import type { ClientWrite } from '../../domain/clients/model.js';
import type { InboundWrite } from '../../domain/inbounds/model.js';

const client = (email: string, extra: Partial<ClientWrite> = {}): ClientWrite => ({
  email, subId: `s-${email}`, uuid: `u-${email}`, password: '', auth: '', flow: '', security: '', method: '', totalGB: 0, expiryTime: 0,
  enable: true, limitIp: 0, tgId: 0, comment: '', group: '', reverse: null, reset: 0, createdAt: 1, updatedAt: 1, ...extra,
});

const inbound = (port: number, extra: Partial<InboundWrite> = {}): InboundWrite => ({
  userId: 1, total: 0, remark: `r${port}`, enable: true, expiryTime: 0, listen: '', port, protocol: 'vless',
  settings: { decryption: 'none', clients: [{ email: 'never stored' }] }, streamSettings: { network: 'tcp' }, sniffing: {},
  tag: `inbound-${port}`, nodeId: null, ...extra,
});

describe.each(testDatabases())('clients and inbounds storage on $name', (db) => {
  let store: Store;
  let A = 0;
  let B = 0;
  beforeAll(async () => {
    store = await freshStore(db);
    A = (await store.inbounds.create(inbound(1001)))!.id;
    B = (await store.inbounds.create(inbound(1002, { protocol: 'trojan' })))!.id;
  });
  afterAll(async () => { await store.close(); });

  it('inbound settings never store clients; tags are unique', async () => {
    const ib = await store.inbounds.byId(A);
    expect(ib!.settings).toEqual({ decryption: 'none' });
    expect(await store.inbounds.create(inbound(1003, { tag: 'inbound-1001' }))).toBeNull();
    expect(await store.inbounds.tagTaken('inbound-1001')).toBe(true);
    expect(await store.inbounds.tagTaken('inbound-1001', A)).toBe(false);
  });

  it('insertMany: chunked, one transaction, taken emails reported, attachments and counters created', async () => {
    const items = Array.from({ length: 1200 }, (_, i) => ({ row: client(`m${i}@x`, { reverse: i === 0 ? { tag: 'rv' } : null }), inboundIds: [A, B] }));
    const first = await store.clients.insertMany(items);
    expect(first.created).toHaveLength(1200);
    expect(first.taken).toEqual([]);
    const again = await store.clients.insertMany([{ row: client('m5@x'), inboundIds: [A] }, { row: client('fresh@x'), inboundIds: [A] }]);
    expect(again).toEqual({ created: ['fresh@x'], taken: ['m5@x'] });
    const m0 = await store.clients.full('m0@x');
    expect(m0).toMatchObject({ email: 'm0@x', uuid: 'u-m0@x', reverse: { tag: 'rv' }, inboundIds: [A, B], traffic: { up: 0, down: 0, enable: true } });
    const rows = await store.inbounds.attachedClients([A]);
    expect(rows).toHaveLength(1201);
    expect(rows[0]).toMatchObject({ inboundId: A, up: 0, trafficEnable: true, client: { email: 'm0@x', enable: true, reverse: { tag: 'rv' } } });
    expect(typeof rows[0]!.client.id).toBe('number');
  });

  it('insert refuses a taken email and clears a tombstone', async () => {
    expect(await store.clients.insert(client('m1@x'), [A])).toBeNull();
    expect(await store.clients.remove(['fresh@x'], true, 5)).toEqual(['fresh@x']);
    expect(await store.clients.isTombstoned('fresh@x')).toBe(true);
    expect(await store.clients.insert(client('fresh@x'), [B])).not.toBeNull();
    expect(await store.clients.isTombstoned('fresh@x')).toBe(false);
  });

  it('replace can rename; counters follow; enable clears the auto-disable flag', async () => {
    const c = (await store.clients.byEmail('m2@x'))!;
    await store.traffic.applyDeltas({ clients: [{ email: 'm2@x', up: 3, down: 4 }], inbounds: [], outbounds: [] }, 1_000_000);
    const { id: _id, ...row } = c;
    expect(await store.clients.replace(c.id, 'm2@x', { ...row, email: 'm3@x' })).toEqual({ outcome: 'email-taken' });
    const r = await store.clients.replace(c.id, 'm2@x', { ...row, email: 'renamed@x', comment: 'c' });
    expect(r).toMatchObject({ outcome: 'ok', traffic: { up: 3, down: 4, enable: true } });
    expect(await store.clients.byEmail('m2@x')).toBeNull();
    expect((await store.clients.traffic('renamed@x'))).toMatchObject({ up: 3, down: 4 });
    expect(await store.clients.replace(999_999, 'x', { ...row, email: 'zz@x' })).toEqual({ outcome: 'missing' });
  });

  it('remove drops attachments, IPs and counters unless kept, and tombstones', async () => {
    await store.traffic.recordIps([{ email: 'm4@x', ip: '192.0.2.1' }], 100);
    expect(await store.clients.remove(['m4@x', 'ghost@x'], false, 9)).toEqual(['m4@x']);
    expect(await store.clients.ips('m4@x')).toEqual([]);
    expect(await store.clients.traffic('m4@x')).toBeNull();
    expect((await store.inbounds.attachedClients([A])).some((r) => r.client.email === 'm4@x')).toBe(false);
    expect(await store.clients.isTombstoned('m4@x')).toBe(true);
  });

  it('statuses: one bucket per client (d, x, e, a) and the online flag; all non-plain rows, or just the given emails', async () => {
    const now = 1_000_000;
    const p = { now, onlineSince: 500, expireDiffMs: 100, trafficDiffBytes: 10 };
    await store.clients.insert(client('st-used@x', { totalGB: 100 }), [A]);
    await store.clients.insert(client('st-off@x', { enable: false }), [A]);
    await store.clients.insert(client('st-soon@x', { expiryTime: now + 50 }), [A]);
    await store.clients.insert(client('st-near@x', { totalGB: 100 }), [A]);
    await store.clients.insert(client('st-online@x'), [A]);
    await store.clients.insert(client('st-plain@x'), [A]);
    await store.traffic.applyDeltas({ clients: [
      { email: 'st-used@x', up: 60, down: 40 }, { email: 'st-near@x', up: 95, down: 0 }, { email: 'st-online@x', up: 1, down: 1 },
    ], inbounds: [], outbounds: [] }, 600_000);
    const picked = ['st-used@x', 'st-off@x', 'st-soon@x', 'st-near@x', 'st-online@x', 'st-plain@x', 'nobody@x'];
    const some = await store.clients.statuses(p, { emails: picked });
    const byEmail = Object.fromEntries(some.map((r) => [r.email, [r.bucket, r.online]]));
    expect(byEmail).toEqual({
      // counters moved at 600 s (>= onlineSince 500): those three are online whatever their bucket
      'st-used@x': ['d', true], 'st-off@x': ['x', false], 'st-soon@x': ['e', false], 'st-near@x': ['e', true], 'st-online@x': ['a', true],
    });
    const all = await store.clients.statuses(p);
    expect(all.filter((r) => picked.includes(r.email)).map((r) => r.email)).toEqual(some.map((r) => r.email).sort((a, b) =>
      all.findIndex((r) => r.email === a) - all.findIndex((r) => r.email === b)));
    expect(all.some((r) => r.email === 'st-plain@x')).toBe(false);
    const ids = (await store.clients.byEmails(['st-used@x']))[0]!.id;
    expect(some.find((r) => r.email === 'st-used@x')!.id).toBe(ids);
    expect(await store.clients.statuses(p, { emails: [] })).toEqual([]);
    // an id range: only ids inside it, either bound open
    const usedId = some.find((r) => r.email === 'st-used@x')!.id;
    const nearId = some.find((r) => r.email === 'st-near@x')!.id;
    expect((await store.clients.statuses(p, { fromId: usedId, toId: usedId })).map((r) => r.email)).toEqual(['st-used@x']);
    expect((await store.clients.statuses(p, { fromId: nearId })).map((r) => r.email)).toEqual(['st-near@x', 'st-online@x']);
    expect((await store.clients.statuses(p, { toId: usedId })).map((r) => r.email)).toContain('st-used@x');
    expect((await store.clients.statuses(p, { toId: usedId })).map((r) => r.email)).not.toContain('st-off@x');
    // batch after batch from id 1 covers every client once
    const batched: typeof all = [];
    for (let from: number | null = 1; from !== null;) {
      const batch = await store.clients.statusBatch(p, from);
      batched.push(...batch.rows);
      from = batch.next;
    }
    const byId = (rows: typeof all) => [...rows].sort((a, b) => a.id - b.id);
    expect(byId(batched)).toEqual(byId(all));
    const count = await store.clients.count();
    expect(count).toBeGreaterThanOrEqual(6);
    await store.clients.remove(['st-plain@x'], false, now);
    expect(await store.clients.count()).toBe(count - 1);
  });

  it('changedSince: counters moved since the window opened, expiry or expiry minus the diff inside it; null past the limit', async () => {
    const T = 2_000_000_000_000; // ms, far from the other tests' rows
    await store.clients.insert(client('cs-moved@x'), [A]);
    await store.clients.insert(client('cs-quiet@x'), [A]);
    await store.clients.insert(client('cs-expires@x', { expiryTime: T + 5000 }), [A]);
    await store.clients.insert(client('cs-nears@x', { expiryTime: T + 86_400_000 + 5000 }), [A]);
    await store.clients.insert(client('cs-later@x', { expiryTime: T + 50_000 }), [A]);
    await store.traffic.applyDeltas({ clients: [{ email: 'cs-quiet@x', up: 1, down: 0 }], inbounds: [], outbounds: [] }, T - 60_000);
    await store.traffic.applyDeltas({ clients: [{ email: 'cs-moved@x', up: 1, down: 0 }], inbounds: [], outbounds: [] }, T + 2000);
    const got = await store.clients.changedSince(T, T + 10_000, 86_400_000, 100);
    expect([...got!].sort()).toEqual(['cs-expires@x', 'cs-moved@x', 'cs-nears@x']);
    expect(await store.clients.changedSince(T, T + 10_000, 86_400_000, 2)).toBeNull();
    expect(await store.clients.changedSince(T + 20_000, T + 30_000, 0, 100)).toEqual([]);
  });

  it('remove returns the deleted emails in the order given (not the order the rows were visited in)', async () => {
    for (const e of ['ord1@x', 'ord2@x', 'ord3@x']) await store.clients.insert(client(e), [A]);
    expect(await store.clients.remove(['ord3@x', 'missing@x', 'ord1@x', 'ord2@x', 'ord3@x'], false, 5)).toEqual(['ord3@x', 'ord1@x', 'ord2@x']);
  });

  it('deleting an inbound detaches clients and keeps them', async () => {
    const C = (await store.inbounds.create(inbound(1009)))!.id;
    await store.clients.attach((await store.clients.byEmail('m6@x'))!.id, [C]);
    expect(await store.inbounds.remove(C)).toBe(true);
    expect((await store.clients.full('m6@x'))!.inboundIds).toEqual([A, B]);
  });

  it('groups: merged list with counts, rename merges, delete clears', async () => {
    await store.clients.setGroup(['m7@x', 'm8@x'], 'One', 2);
    await store.groups.create('Empty', 2);
    expect(await store.groups.create('One', 2)).toBe(false);
    const list = await store.groups.list();
    expect(list).toEqual([{ name: 'Empty', clientCount: 0 }, { name: 'One', clientCount: 2 }]);
    expect(await store.groups.rename('One', 'Empty', 3)).toEqual(expect.arrayContaining(['m7@x', 'm8@x']));
    expect(await store.groups.list()).toEqual([{ name: 'Empty', clientCount: 2 }]);
    expect((await store.groups.remove('Empty', 4)).sort()).toEqual(['m7@x', 'm8@x']);
    expect(await store.groups.list()).toEqual([]);
  });

  it('fallbacks are replaced atomically and cascade with the inbound', async () => {
    const M = (await store.inbounds.create(inbound(1010)))!.id;
    const K = (await store.inbounds.create(inbound(1011)))!.id;
    const saved = await store.inbounds.replaceFallbacks(M, [{ childId: K, name: 'a', alpn: '', path: '/p', xver: 1, sortOrder: 2 }]);
    expect(saved).toMatchObject([{ masterId: M, childId: K, name: 'a', path: '/p', xver: 1, sortOrder: 2 }]);
    await store.inbounds.remove(K);
    expect(await store.inbounds.fallbacks(M)).toEqual([]);
  });
});
