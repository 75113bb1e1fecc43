// The paged list's summary cache: the status book's capped lists, patching, and when it rebuilds (domain/clients/summary.ts).
import { describe, expect, it } from 'vitest';
import { FULL_REBUILD_MS, PATCH_MAX, StatusBook, SummaryCache, type SummarySource } from '../../domain/clients/summary.js';
import type { StatusScope } from '../../domain/ports/clients-store.js';
import { SUMMARY_EMAIL_CAP, type BucketParams, type StatusRow } from '../../domain/clients/model.js';

const TTL = 5000;
const BATCH = 10_000;
const params = (now: number): BucketParams => ({ now, onlineSince: 0, expireDiffMs: 0, trafficDiffBytes: 0 });

/** A source over an in-memory table of statuses, recording every call. */
class FakeSource implements SummarySource {
  rows = new Map<string, StatusRow>();
  calls: (string[] | 'all')[] = [];
  ranges: [number, number][] = [];
  /** While set, full reads (not patches) wait for it after taking their rows. */
  gate: Promise<void> | null = null;
  set(id: number, email: string, bucket: StatusRow['bucket'], online = false) { this.rows.set(email, { id, email, bucket, online }); }
  async statuses(_p: BucketParams, scope: StatusScope = {}) {
    const emails = 'emails' in scope ? scope.emails : null;
    const from = 'emails' in scope ? 0 : scope.fromId ?? 0;
    const to = 'emails' in scope ? Infinity : scope.toId ?? Infinity;
    this.calls.push(emails ?? 'all');
    if (!emails) this.ranges.push([from, to]);
    const snapshot = [...this.rows.values()].filter((r) => (emails ? emails.includes(r.email) : r.id >= from && r.id <= to) && (r.bucket !== 'a' || r.online));
    if (this.gate && !emails) await this.gate; // only full reads wait
    return snapshot.map((r) => ({ ...r }));
  }
  /** What changedSince answers (null: too many); each call is recorded. */
  moved: string[] | null = [];
  windows: [number, number][] = [];
  async changedSince(fromMs: number, toMs: number, _diff: number, limit: number) {
    this.windows.push([fromMs, toMs]);
    return this.moved && this.moved.length <= limit ? [...this.moved] : null;
  }
  /** Batches of BATCH ids, as the SQLite repository reads them. */
  async statusBatch(p: BucketParams, fromId: number) {
    const max = Math.max(0, ...[...this.rows.values()].map((r) => r.id));
    const toId = fromId + BATCH - 1;
    const last = toId >= max;
    return { rows: await this.statuses(p, last ? { fromId } : { fromId, toId }), next: last ? null : toId + 1 };
  }
  async count() { return this.rows.size; }
  async groupNames() { return ['g']; }
}

describe('StatusBook', () => {
  it('keeps the first SUMMARY_EMAIL_CAP members by id through puts and removals (against a brute-force list)', () => {
    let seed = 7;
    const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
    const truth = new Map<string, StatusRow>();
    const book = new StatusBook([]);
    for (let step = 0; step < 5000; step++) {
      const id = rand(1500);
      const email = `u${id}`;
      const buckets: StatusRow['bucket'][] = ['a', 'd', 'x', 'e'];
      const row: StatusRow = { id, email, bucket: buckets[rand(4)]!, online: rand(3) === 0 };
      const gone = rand(5) === 0;
      if (gone) truth.delete(email); else truth.set(email, row);
      book.patch([email], gone || (row.bucket === 'a' && !row.online) ? [] : [row]);
      if (step % 250 !== 0) continue;
      const total = truth.size;
      const list = (pick: (r: StatusRow) => boolean) => [...truth.values()].filter(pick).sort((a, b) => a.id - b.id).map((r) => r.email);
      const depleted = list((r) => r.bucket === 'd');
      const deactive = list((r) => r.bucket === 'x');
      const expiring = list((r) => r.bucket === 'e');
      const online = list((r) => r.online);
      expect(book.summary(total)).toEqual({
        total, active: total - depleted.length - deactive.length - expiring.length,
        depleted: depleted.slice(0, SUMMARY_EMAIL_CAP), deactive: deactive.slice(0, SUMMARY_EMAIL_CAP),
        expiring: expiring.slice(0, SUMMARY_EMAIL_CAP), online: online.slice(0, SUMMARY_EMAIL_CAP),
        depletedCount: depleted.length, deactiveCount: deactive.length, expiringCount: expiring.length, onlineCount: online.length,
      });
    }
  });
});

describe('SummaryCache', () => {
  const setup = () => {
    const src = new FakeSource();
    src.set(1, 'a@x', 'a');
    src.set(2, 'd@x', 'd');
    src.set(3, 'x@x', 'x', false);
    src.set(4, 'on@x', 'a', true);
    return { src, cache: new SummaryCache(src, TTL) };
  };

  it('reads everything once, then only the emails that changed', async () => {
    const { src, cache } = setup();
    const first = await cache.get(params(1000));
    expect(first.summary).toMatchObject({ total: 4, active: 2, depleted: ['d@x'], deactive: ['x@x'], online: ['on@x'] });
    expect(first.groups).toEqual(['g']);
    expect((await cache.get(params(1000))).summary).toEqual(first.summary);
    src.set(1, 'a@x', 'd');
    src.set(5, 'new@x', 'e');
    cache.clientsChanged(['a@x', 'new@x']);
    const next = await cache.get(params(1100));
    expect(src.calls).toEqual(['all', ['a@x', 'new@x']]);
    expect(next.summary).toMatchObject({ total: 5, active: 1, depleted: ['a@x', 'd@x'], expiring: ['new@x'] });
  });

  it('a rebuild reads batch after batch in id order and lets other work run in between', async () => {
    const { src, cache } = setup();
    src.set(2.5 * BATCH, 'far@x', 'd');
    // Other work: a callback queued like an I/O completion, re-queued each time it runs.
    const order: string[] = [];
    let running = true;
    const other = () => { order.push('other'); if (running) setImmediate(other); };
    setImmediate(other);
    const batch = src.statusBatch.bind(src);
    src.statusBatch = async (p, from) => { order.push('batch'); return batch(p, from); };
    try {
      const o = await cache.get(params(0));
      expect(o.summary.depleted).toEqual(['d@x', 'far@x']);
    } finally {
      running = false;
    }
    expect(src.ranges).toEqual([[1, BATCH], [BATCH + 1, 2 * BATCH], [2 * BATCH + 1, Infinity]]);
    const batches = order.flatMap((x, i) => (x === 'batch' ? [i] : []));
    expect(batches).toHaveLength(3);
    for (let k = 1; k < batches.length; k++) expect(order.slice(batches[k - 1]! + 1, batches[k]!)).toContain('other');
  });

  it('more than PATCH_MAX changed emails, or a change to everything, means one full read', async () => {
    const { src, cache } = setup();
    await cache.get(params(0));
    cache.clientsChanged(Array.from({ length: PATCH_MAX + 1 }, (_, i) => `m${i}@x`));
    await cache.get(params(0));
    cache.everythingChanged();
    await cache.get(params(0));
    expect(src.calls).toEqual(['all', 'all', 'all']);
  });

  it('past the TTL: re-reads the clients that moved without an event and the online ones, and is current at once', async () => {
    const { src, cache } = setup();
    await cache.get(params(0));
    src.set(1, 'a@x', 'a', true); // came online: no event, its counters moved
    src.set(4, 'on@x', 'a', false); // went quiet
    src.moved = ['a@x'];
    expect((await cache.get(params(TTL - 1))).summary.online).toEqual(['on@x']); // within the TTL: as it was
    const o = await cache.get(params(TTL));
    expect(o.summary.online).toEqual(['a@x']);
    expect(src.windows).toEqual([[0, TTL]]);
    expect(src.calls).toEqual(['all', ['on@x', 'a@x']]);
    // the next window starts where this one ended
    src.moved = [];
    await cache.get(params(2 * TTL + 5));
    expect(src.windows).toEqual([[0, TTL], [TTL, 2 * TTL + 5]]);
    expect(src.calls.filter((c) => c === 'all')).toHaveLength(1);
  });

  it('too much moved: served once more while rebuilt in the background; older than twice the TTL: rebuilt first', async () => {
    const { src, cache } = setup();
    await cache.get(params(0));
    src.moved = null;
    src.set(1, 'a@x', 'a', true);
    let release!: () => void;
    src.gate = new Promise((r) => (release = r));
    const stale = await cache.get(params(TTL)); // does not wait for the gated rebuild
    expect(stale.summary.online).toEqual(['on@x']);
    expect(src.calls).toEqual(['all', 'all']);
    release();
    src.gate = null;
    await new Promise((r) => setTimeout(r, 0));
    expect((await cache.get(params(TTL + 1))).summary.online).toEqual(['a@x', 'on@x']);
    src.set(2, 'd@x', 'd', true);
    expect((await cache.get(params(3 * TTL + 1))).summary.online).toEqual(['a@x', 'd@x', 'on@x']);
    // a clock that went backwards is not trusted either
    src.set(3, 'x@x', 'x', true);
    expect((await cache.get(params(0))).summary.online).toEqual(['a@x', 'd@x', 'x@x', 'on@x']);
  });

  it('warm() rebuilds ahead of the first request; a summary rebuilt over FULL_REBUILD_MS ago is rebuilt in the background', async () => {
    const { src, cache } = setup();
    await cache.warm(params(0));
    expect(src.calls).toEqual(['all']);
    await cache.get(params(1));
    await cache.warm(params(2)); // current: nothing to do
    expect(src.calls).toEqual(['all']);
    // a row written behind the cache's back (no event, no counters moved) shows after the backstop rebuild
    src.set(9, 'hidden@x', 'x');
    for (let t = TTL; t < FULL_REBUILD_MS; t += TTL) expect((await cache.get(params(t))).summary.deactive).toEqual(['x@x']);
    await cache.get(params(FULL_REBUILD_MS)); // served, and rebuilt in the background
    await new Promise((r) => setTimeout(r, 0));
    expect((await cache.get(params(FULL_REBUILD_MS + 1))).summary.deactive).toEqual(['x@x', 'hidden@x']);
    expect(src.calls.filter((c) => c === 'all')).toHaveLength(2);
  });

  it('a change made while a rebuild is reading is read again afterwards', async () => {
    const { src, cache } = setup();
    await cache.get(params(0));
    let release!: () => void;
    src.gate = new Promise((r) => (release = r));
    cache.everythingChanged();
    const rebuilding = cache.get(params(0)); // the rebuild has read its rows and waits at the gate
    await new Promise((r) => setTimeout(r, 0));
    src.set(1, 'a@x', 'x');
    cache.clientsChanged(['a@x']);
    src.gate = null;
    release();
    await rebuilding;
    expect((await cache.get(params(0))).summary.deactive).toEqual(['a@x', 'x@x']);
  });

  it('a client patched into the old summary while a background rebuild reads is patched again into the new one', async () => {
    const { src, cache } = setup();
    await cache.get(params(0));
    let release!: () => void;
    src.gate = new Promise((r) => (release = r));
    src.moved = null; // too much moved: a background rebuild
    await cache.get(params(TTL)); // stale: the background rebuild reads (a@x active) and waits at the gate
    src.set(1, 'a@x', 'x');
    cache.clientsChanged(['a@x']);
    expect((await cache.get(params(TTL))).summary.deactive).toEqual(['a@x', 'x@x']); // patched into the old one
    src.gate = null;
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect((await cache.get(params(TTL))).summary.deactive).toEqual(['a@x', 'x@x']); // the new one read a@x before
    expect(src.calls.slice(-1)).toEqual([['a@x']]);
  });

  it('a failed read leaves the changed emails marked for the next request', async () => {
    const { src, cache } = setup();
    await cache.get(params(0));
    src.set(1, 'a@x', 'x');
    cache.clientsChanged(['a@x']);
    const real = src.statuses.bind(src);
    src.statuses = async () => { throw new Error('database gone'); };
    await expect(cache.get(params(0))).rejects.toThrow('database gone');
    src.statuses = real;
    expect((await cache.get(params(0))).summary.deactive).toEqual(['a@x', 'x@x']);
  });

  it('group names are read again after a group change', async () => {
    const { src, cache } = setup();
    await cache.get(params(0));
    let reads = 0;
    src.groupNames = async () => { reads++; return ['g', 'h']; };
    expect((await cache.get(params(0))).groups).toEqual(['g']);
    cache.groupsChanged();
    expect((await cache.get(params(0))).groups).toEqual(['g', 'h']);
    await cache.get(params(0));
    expect(reads).toBe(1);
  });
});
