// Keeping the paged list's catalog current (domain/clients/catalog-cache.ts): what it reads when, what it applies in
// memory, and how in-memory changes made while a read is in flight end up counted exactly once.
import { describe, expect, it } from 'vitest';
import { CatalogCache, FULL_REBUILD_MS, PATCH_MAX, type CatalogSource } from '../../domain/clients/catalog-cache.js';
import type { CatalogRow, CounterMove } from '../../domain/clients/catalog.js';
import type { BucketParams, PageQuery } from '../../domain/clients/model.js';

const T0 = 1_800_000_000_000;
/** Quota of every client here: big enough that none runs out, so `used` can be read back exactly (usedOf). */
const QUOTA = 1_000_000;

const row = (id: number, email: string, over: Partial<CatalogRow> = {}): CatalogRow => ({
  id,
  email,
  subId: '',
  comment: '',
  group: '',
  enable: true,
  totalGB: QUOTA,
  expiryTime: 0,
  used: 100,
  trafficEnable: true,
  lastOnline: 0,
  inboundIds: [1],
  ...over,
});
const clone = (r: CatalogRow): CatalogRow => ({ ...r, inboundIds: [...r.inboundIds] });
const query = (over: Partial<PageQuery> = {}): PageQuery => ({
  page: 1,
  pageSize: 1000,
  search: '',
  filter: '',
  protocol: '',
  sort: '',
  order: 'ascend',
  ...over,
});
const params = (now = T0, over: Partial<BucketParams> = {}): BucketParams => ({
  now,
  onlineSince: 0,
  expireDiffMs: 0,
  trafficDiffBytes: 0,
  ...over,
});

/** Lets queued callbacks (I/O completions, setImmediate) run `n` times over. */
const turns = async (n = 20): Promise<void> => {
  for (let k = 0; k < n; k++) await new Promise((r) => setImmediate(r));
};
/** Whether `p` has settled after other work had its turns. */
const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await turns();
  return done;
};

type Hold = { kind: 'rows' | 'batch'; fromId?: number; seesLater: boolean; gate: Promise<void> };

/** The database behind the cache: rows by id, every read recorded, reads that can be held open. */
class FakeSource implements CatalogSource {
  rows = new Map<number, CatalogRow>();
  rowReads: string[][] = [];
  batchReads: number[] = [];
  groupReads = 0;
  protocolReads = 0;
  storedGroups = ['g'];
  protocolMap = new Map<number, string>([
    [1, 'vless'],
    [2, 'vmess'],
  ]);
  failRows: Error | null = null;
  private holds: Hold[] = [];

  constructor(
    rows: CatalogRow[],
    private batchIds = 2,
  ) {
    for (const r of rows) this.rows.set(r.id, clone(r));
  }

  async catalogRows(emails: string[]): Promise<CatalogRow[]> {
    this.rowReads.push([...emails]);
    if (this.failRows) throw this.failRows;
    return this.read('rows', undefined, () =>
      [...this.rows.values()].filter((r) => emails.includes(r.email)).map(clone),
    );
  }

  /** Batches of `batchIds` ids, `next` as storage computes it (null once the batch reaches the largest id). */
  async catalogBatch(fromId: number): Promise<{ rows: CatalogRow[]; next: number | null }> {
    this.batchReads.push(fromId);
    const toId = fromId + this.batchIds - 1;
    return this.read('batch', fromId, () => {
      const max = Math.max(0, ...this.rows.keys());
      const rows = [...this.rows.values()]
        .filter((r) => r.id >= fromId && r.id <= toId)
        .sort((a, b) => a.id - b.id)
        .map(clone);
      return { rows, next: toId < max ? toId + 1 : null };
    });
  }

  async storedGroupNames(): Promise<string[]> {
    this.groupReads++;
    return [...this.storedGroups];
  }

  async protocols(): Promise<Map<number, string>> {
    this.protocolReads++;
    return new Map(this.protocolMap);
  }

  /**
   * Holds the next read of this kind (a batch: from `fromId`) until the returned function is called. The read takes
   * its rows when it starts, or with `seesLater` when released (then it sees what was stored meanwhile).
   */
  hold(kind: Hold['kind'], { seesLater = false, fromId }: { seesLater?: boolean; fromId?: number } = {}): () => void {
    let open!: () => void;
    const h: Hold = { kind, fromId, seesLater, gate: new Promise<void>((r) => (open = r)) };
    this.holds.push(h);
    return () => {
      this.holds = this.holds.filter((x) => x !== h);
      open();
    };
  }

  update(email: string, over: Partial<CatalogRow>): void {
    const r = [...this.rows.values()].find((x) => x.email === email)!;
    Object.assign(r, over);
  }

  /** Stores a traffic tick as storage does (repos/traffic.ts applyDeltas). */
  storeTick(moves: CounterMove[], atMs: number): void {
    for (const m of moves) {
      const r = [...this.rows.values()].find((x) => x.email === m.email);
      if (!r) continue;
      r.used += m.up + m.down;
      r.lastOnline = Math.floor(atMs / 1000);
      if (r.expiryTime < 0) r.expiryTime = atMs - r.expiryTime;
    }
  }

  private async read<T>(kind: Hold['kind'], fromId: number | undefined, take: () => T): Promise<T> {
    const h = this.holds.find((x) => x.kind === kind && (x.fromId === undefined || x.fromId === fromId));
    if (!h) return take();
    if (h.seesLater) {
      await h.gate;
      return take();
    }
    const taken = take();
    await h.gate;
    return taken;
  }
}

/** Five clients (ids 1-5, batches of two ids: reads from 1, 3, 5); `a@x` and `e@x` sit in different batches. */
const setup = (batchIds = 2) => {
  const src = new FakeSource(
    [
      row(1, 'a@x'),
      row(2, 'b@x', { inboundIds: [1, 2] }),
      row(3, 'c@x', { enable: false, inboundIds: [2] }),
      row(4, 'd@x'),
      row(5, 'e@x'),
    ],
    batchIds,
  );
  return { src, cache: new CatalogCache(src) };
};
/** The cache after its first page (the full read done). */
const started = async (batchIds = 2) => {
  const s = setup(batchIds);
  await s.cache.page(query(), params());
  return s;
};

const idsOf = async (cache: CatalogCache, q: Partial<PageQuery> = {}, p = params()): Promise<number[]> =>
  (await cache.page(query(q), p)).ids;
/** Used bytes of client `id` as the cache counts them: it is `expiring` exactly when trafficDiff > QUOTA - used. */
async function usedOf(cache: CatalogCache, id: number, now = T0): Promise<number> {
  let lo = 0;
  let hi = QUOTA + 1;
  while (lo < hi) {
    const d = Math.floor((lo + hi) / 2);
    if ((await idsOf(cache, { filter: 'expiring' }, params(now, { trafficDiffBytes: d }))).includes(id)) hi = d;
    else lo = d + 1;
  }
  return QUOTA + 1 - lo;
}
const tick = (src: FakeSource, cache: CatalogCache, moves: CounterMove[], atMs: number): void => {
  src.storeTick(moves, atMs);
  cache.countersMoved(moves, atMs);
};

describe('CatalogCache reads', () => {
  it('the first page reads everything batch by batch in id order, letting other work run between batches', async () => {
    const { src, cache } = setup();
    const order: string[] = [];
    let running = true;
    const other = () => {
      order.push('other');
      if (running) setImmediate(other);
    }; // queued like I/O completions
    setImmediate(other);
    const batch = src.catalogBatch.bind(src);
    src.catalogBatch = async (fromId) => {
      order.push('batch');
      return batch(fromId);
    };
    try {
      const page = await cache.page(query(), params());
      expect(page).toMatchObject({ ids: [1, 2, 3, 4, 5], filtered: 5, groups: ['g'] });
      expect(page.summary).toMatchObject({ total: 5, deactive: ['c@x'] });
    } finally {
      running = false;
    }
    expect(src.batchReads).toEqual([1, 3, 5]);
    expect(src.rowReads).toEqual([]);
    const batches = order.flatMap((x, i) => (x === 'batch' ? [i] : []));
    for (let k = 1; k < batches.length; k++) expect(order.slice(batches[k - 1]! + 1, batches[k]!)).toContain('other');
  });

  it('warm() reads everything ahead of the first page, and nothing more while the catalog is current', async () => {
    const { src, cache } = setup();
    await cache.warm(T0);
    await cache.warm(T0 + 1);
    expect(await idsOf(cache)).toEqual([1, 2, 3, 4, 5]);
    expect(src.batchReads).toEqual([1, 3, 5]);
  });

  it('later pages read only the emails marked since', async () => {
    const { src, cache } = await started();
    expect(await idsOf(cache)).toEqual([1, 2, 3, 4, 5]);
    src.update('a@x', { enable: false });
    src.rows.set(6, row(6, 'f@x', { enable: false }));
    cache.clientsChanged(['a@x', 'f@x']);
    const page = await cache.page(query({ filter: 'deactive' }), params());
    expect(page.ids).toEqual([1, 3, 6]);
    expect(page.summary.total).toBe(6);
    expect(src.rowReads).toEqual([['a@x', 'f@x']]);
    expect(src.batchReads).toEqual([1, 3, 5]);
  });

  it('a marked email without a row is gone from the catalog', async () => {
    const { src, cache } = await started();
    src.rows.delete(2);
    cache.clientsChanged(['b@x']);
    expect(await idsOf(cache)).toEqual([1, 3, 4, 5]);
  });

  it('up to PATCH_MAX marks are read as marks; more, in one or several calls, mean a full read', async () => {
    const { src, cache } = await started();
    const many = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@x`);
    cache.clientsChanged(many(PATCH_MAX, 'm'));
    await cache.page(query(), params());
    expect(src.rowReads).toHaveLength(1);
    expect(src.batchReads).toEqual([1, 3, 5]);
    cache.clientsChanged(many(PATCH_MAX + 1, 'n'));
    await cache.page(query(), params());
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5]);
    cache.clientsChanged(many(PATCH_MAX / 2, 'o'));
    cache.clientsChanged(many(PATCH_MAX / 2 + 1, 'p'));
    await cache.page(query(), params());
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5, 1, 3, 5]);
    expect(src.rowReads).toHaveLength(1);
  });

  it('everythingChanged means a full read before the next page answers', async () => {
    const { src, cache } = await started();
    src.rows.set(6, row(6, 'hidden@x'));
    cache.everythingChanged();
    expect(await idsOf(cache)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5]);
    expect(src.rowReads).toEqual([]);
  });

  it('a failing read of marks propagates its error and keeps the marks for the next page', async () => {
    const { src, cache } = await started();
    src.update('a@x', { enable: false });
    cache.clientsChanged(['a@x']);
    src.failRows = new Error('database gone');
    await expect(cache.page(query(), params())).rejects.toThrow('database gone');
    src.failRows = null;
    expect(await idsOf(cache, { filter: 'deactive' })).toEqual([1, 3]);
    expect(src.rowReads).toEqual([['a@x'], ['a@x']]);
  });

  it('two pages after a mark: neither answers before the read of the mark landed, and it is read once', async () => {
    const { src, cache } = await started();
    src.update('a@x', { enable: false });
    cache.clientsChanged(['a@x']);
    const release = src.hold('rows');
    const first = cache.page(query({ filter: 'deactive' }), params());
    const second = cache.page(query({ filter: 'deactive' }), params());
    expect(await settled(first)).toBe(false);
    expect(await settled(second)).toBe(false);
    release();
    expect((await first).ids).toEqual([1, 3]);
    expect((await second).ids).toEqual([1, 3]);
    expect(src.rowReads).toEqual([['a@x']]);
  });

  it('a page during a read of marks does not answer before that read landed, even with no marks left', async () => {
    const { src, cache } = await started();
    src.update('a@x', { enable: false });
    cache.clientsChanged(['a@x']);
    const release = src.hold('rows');
    const first = cache.page(query(), params());
    await turns(); // the read of a@x is under way, the marks are taken
    const second = cache.page(query({ filter: 'deactive' }), params());
    expect(await settled(second)).toBe(false);
    release();
    expect((await second).ids).toEqual([1, 3]);
    await first;
  });
});

describe('CatalogCache in-memory changes', () => {
  it('counters moved by a tick count at once, without a read', async () => {
    const { src, cache } = await started();
    tick(src, cache, [{ email: 'a@x', up: 30, down: 12 }], T0 + 5000);
    expect(await usedOf(cache, 1)).toBe(142);
    expect(await idsOf(cache, { filter: 'online' }, params(T0, { onlineSince: (T0 + 5000) / 1000 }))).toEqual([1]);
    expect(src.rowReads).toEqual([]);
    expect(src.batchReads).toEqual([1, 3, 5]);
  });

  it('an inbound deletion detaches its clients without a read; an update or an "all" deletion does not detach', async () => {
    const { src, cache } = await started();
    expect(await idsOf(cache, { protocol: 'vmess' })).toEqual([2, 3]);
    cache.inboundsChanged([2], 'update');
    expect(await idsOf(cache, { protocol: 'vmess' })).toEqual([2, 3]);
    cache.inboundsChanged([2], 'del'); // the fake still maps inbound 2 to vmess: only a detach empties the filter
    expect(await idsOf(cache, { protocol: 'vmess' })).toEqual([]);
    expect(await idsOf(cache, { sort: 'inboundIds', order: 'descend' })).toEqual([1, 2, 4, 5, 3]);
    expect(src.rowReads).toEqual([]);
    expect(src.batchReads).toEqual([1, 3, 5]);
    cache.inboundsChanged('all', 'del');
    await cache.page(query(), params());
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5]);
  });

  it('protocols are read on the first protocol filter, cached, and read again after an inbound change', async () => {
    const { src, cache } = await started();
    expect(src.protocolReads).toBe(0);
    await idsOf(cache, { protocol: 'vless' });
    await idsOf(cache, { protocol: 'vless' });
    expect(src.protocolReads).toBe(1);
    src.protocolMap.set(1, 'trojan');
    cache.inboundsChanged([1], 'update');
    expect(await idsOf(cache, { protocol: 'trojan' })).toEqual([1, 2, 4, 5]);
    expect(src.protocolReads).toBe(2);
  });

  it('stored group names are cached until groupsChanged', async () => {
    const { src, cache } = await started();
    src.storedGroups = ['g', 'h'];
    expect((await cache.page(query(), params())).groups).toEqual(['g']);
    cache.groupsChanged();
    expect((await cache.page(query(), params())).groups).toEqual(['g', 'h']);
    await cache.page(query(), params());
    expect(src.groupReads).toBe(2);
  });

  it('the labels clients carry come from the catalog, merged with the stored names and sorted case-insensitively', async () => {
    const { src, cache } = await started();
    src.update('a@x', { group: 'Zed' });
    src.update('b@x', { group: 'apple' });
    src.update('c@x', { group: 'g' });
    cache.clientsChanged(['a@x', 'b@x', 'c@x']);
    expect((await cache.page(query(), params())).groups).toEqual(['apple', 'g', 'Zed']);
    src.update('a@x', { group: '' });
    src.rows.delete(2);
    cache.clientsChanged(['a@x', 'b@x']);
    expect((await cache.page(query(), params())).groups).toEqual(['g']);
    expect(src.batchReads).toEqual([1, 3, 5]);
  });
});

describe('CatalogCache changes while a read is in flight', () => {
  const AT = T0 + 7000;
  const MOVE = { email: 'a@x', up: 200, down: 100 };

  it.each([
    ['read before the tick was stored', false],
    ['read after the tick was stored', true],
  ])('a tick during a read of marks is counted once (%s)', async (_, seesLater) => {
    const { src, cache } = await started();
    src.update('a@x', { comment: 'edited' });
    cache.clientsChanged(['a@x']);
    const release = src.hold('rows', { seesLater });
    const pending = cache.page(query(), params());
    await turns();
    expect(src.rowReads).toEqual([['a@x']]);
    tick(src, cache, [MOVE], AT);
    release();
    await pending;
    expect(await usedOf(cache, 1)).toBe(400);
    expect(await idsOf(cache, { search: 'edited' })).toEqual([1]);
  });

  it('a tick stored before a read of marks started but announced after is counted once', async () => {
    const { src, cache } = await started();
    cache.clientsChanged(['a@x']);
    const release = src.hold('rows');
    src.storeTick([MOVE], AT);
    const pending = cache.page(query(), params()); // reads the row with the tick in it
    await turns();
    cache.countersMoved([MOVE], AT);
    release();
    await pending;
    expect(await usedOf(cache, 1)).toBe(400);
  });

  it.each([
    ['the first read', false, false],
    ['the first read', true, false],
    ['a read after everythingChanged', false, true],
    ['a read after everythingChanged', true, true],
  ])('a tick during %s (its batch sees the tick: %s) is counted once', async (_, seesLater, rebuild) => {
    const s = rebuild ? await started() : setup();
    const { src, cache } = s;
    if (rebuild) cache.everythingChanged();
    const release = src.hold('batch', { seesLater, fromId: 1 });
    const pending = cache.page(query(), params());
    await turns();
    expect(src.batchReads.at(-1)).toBe(1);
    const moves = [MOVE, { email: 'e@x', up: 1, down: 2 }]; // e@x's batch is read after the tick either way
    tick(src, cache, moves, AT);
    release();
    await pending;
    expect(await usedOf(cache, 1)).toBe(400);
    expect(await usedOf(cache, 5)).toBe(103);
  });

  it('an inbound deleted during a read of marks is detached from what the read brought', async () => {
    const { src, cache } = await started();
    cache.clientsChanged(['b@x']);
    const release = src.hold('rows');
    const pending = cache.page(query(), params());
    await turns();
    src.update('b@x', { inboundIds: [1] });
    cache.inboundsChanged([2], 'del');
    release(); // the read still lists inbound 2 for b@x
    await pending;
    expect(await idsOf(cache, { protocol: 'vmess' })).toEqual([]);
  });

  it('a client changed during a full read is read again after it, before the page answers', async () => {
    const { src, cache } = setup();
    const release = src.hold('batch', { fromId: 1 });
    const pending = cache.page(query({ filter: 'deactive' }), params());
    await turns();
    src.update('a@x', { enable: false }); // after its batch was read
    cache.clientsChanged(['a@x']);
    release();
    expect((await pending).ids).toEqual([1, 3]);
    expect(src.rowReads).toEqual([['a@x']]);
  });

  it('a read of marks that started before a full read and lands after it does not undo what the full read brought', async () => {
    const { src, cache } = await started();
    src.update('a@x', { comment: 'one' });
    cache.clientsChanged(['a@x']);
    const release = src.hold('rows'); // takes a@x with comment 'one'
    const first = cache.page(query(), params());
    await turns();
    src.update('a@x', { comment: 'two' }); // e.g. part of a change to every client
    cache.everythingChanged();
    const second = cache.page(query(), params()); // the full read takes 'two' and lands first
    await turns();
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5]);
    release();
    await Promise.all([first, second]);
    expect(await idsOf(cache, { search: 'two' })).toEqual([1]);
  });

  // Two stores in one second happen: a tick that depletes a client restarts the core, which first flushes counters.
  it.each([
    ['neither', false],
    ['the first', true],
  ])(
    'two ticks in the same second during a read of marks are both counted once (the read saw %s)',
    async (_, sawFirst) => {
      const { src, cache } = await started();
      const first = { email: 'a@x', up: 1000, down: 0 };
      const second = { email: 'a@x', up: 20, down: 0 };
      cache.clientsChanged(['a@x']);
      const release = src.hold('rows');
      if (sawFirst) src.storeTick([first], AT); // stored before the read takes its rows, announced after
      const pending = cache.page(query(), params());
      await turns();
      if (sawFirst) cache.countersMoved([first], AT);
      else tick(src, cache, [first], AT);
      tick(src, cache, [second], AT + 300);
      release();
      await pending;
      expect(await usedOf(cache, 1)).toBe(100 + 1000 + 20);
    },
  );

  it('a tick announced just before a read of marks and another in the same second during it are both counted once', async () => {
    const { src, cache } = await started();
    tick(src, cache, [{ email: 'a@x', up: 1000, down: 0 }], AT); // before the read: counted live, and in its rows
    cache.clientsChanged(['a@x']);
    const release = src.hold('rows'); // takes its rows now: lastOnline shows AT's second, without the next tick
    const pending = cache.page(query(), params());
    await turns();
    tick(src, cache, [{ email: 'a@x', up: 20, down: 0 }], AT + 300);
    release();
    await pending;
    expect(await usedOf(cache, 1)).toBe(100 + 1000 + 20);
    expect(src.rowReads).toEqual([['a@x'], ['a@x']]); // read again: its lastOnline could not tell
  });
});

describe('CatalogCache backstop', () => {
  it('a page FULL_REBUILD_MS after the last full read starts one in the background and answers from the catalog it has', async () => {
    const { src, cache } = await started();
    src.rows.set(6, row(6, 'hidden@x')); // written without an event
    expect(await idsOf(cache, {}, params(T0 + FULL_REBUILD_MS - 1))).toEqual([1, 2, 3, 4, 5]);
    expect(src.batchReads).toEqual([1, 3, 5]);
    const release = src.hold('batch', { fromId: 1 });
    const stale = cache.page(query(), params(T0 + FULL_REBUILD_MS));
    expect(await settled(stale)).toBe(true);
    expect((await stale).ids).toEqual([1, 2, 3, 4, 5]);
    expect(src.batchReads).toEqual([1, 3, 5, 1]);
    release();
    await turns();
    expect(await idsOf(cache, {}, params(T0 + FULL_REBUILD_MS + 1))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5]);
    // the next backstop counts from the background read
    await cache.page(query(), params(T0 + 2 * FULL_REBUILD_MS - 1));
    expect(src.batchReads).toHaveLength(6);
  });

  it('a tick during a background read is replayed on it even when a read of marks started later ends first', async () => {
    const { src, cache } = await started();
    const release = src.hold('batch', { fromId: 1 }); // takes a@x before the tick
    await cache.page(query(), params(T0 + FULL_REBUILD_MS));
    tick(src, cache, [{ email: 'a@x', up: 50, down: 0 }], T0 + FULL_REBUILD_MS);
    cache.clientsChanged(['d@x']);
    await cache.page(query(), params(T0 + FULL_REBUILD_MS)); // reads d@x and ends while the full read still runs
    expect(src.rowReads).toEqual([['d@x']]);
    release();
    await turns();
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5]);
    expect(await usedOf(cache, 1, T0 + FULL_REBUILD_MS)).toBe(150);
  });

  it('a clock that went back before the last full read also starts one', async () => {
    const { src, cache } = await started();
    await cache.page(query(), params(T0 - 1));
    await turns();
    expect(src.batchReads).toEqual([1, 3, 5, 1, 3, 5]);
  });

  it('a client patched into the old catalog during a background read is read again into the new one', async () => {
    const { src, cache } = await started();
    const release = src.hold('batch', { fromId: 1 });
    await cache.page(query(), params(T0 + FULL_REBUILD_MS)); // the background read took a@x as it was
    src.update('a@x', { enable: false });
    cache.clientsChanged(['a@x']);
    expect(await idsOf(cache, { filter: 'deactive' }, params(T0 + FULL_REBUILD_MS))).toEqual([1, 3]);
    release();
    await turns();
    expect(await idsOf(cache, { filter: 'deactive' }, params(T0 + FULL_REBUILD_MS))).toEqual([1, 3]);
    expect(src.rowReads).toEqual([['a@x'], ['a@x']]);
  });
});
