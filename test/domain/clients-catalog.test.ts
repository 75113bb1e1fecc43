// The paged list's in-memory catalog (domain/clients/catalog.ts): pages and the summary against a brute-force
// reference built on the bucket definitions of rules.ts, counter moves, and the edge cases of the columnar storage.
import { describe, expect, it } from 'vitest';
import { ClientCatalog, type CatalogRow, type CounterMove } from '../../domain/clients/catalog.js';
import {
  BUCKETS,
  SORT_KEYS,
  SUMMARY_EMAIL_CAP,
  type BucketParams,
  type ClientsSummary,
  type PageQuery,
} from '../../domain/clients/model.js';
import { inBucket, summaryBucket, type StatusInput } from '../../domain/clients/rules.js';

const NOW = 1_800_000_000_000;
const NOW_SEC = NOW / 1000;
const DAY = 86_400_000;
/** Quota of the clients whose used bytes the probes read back. */
const QUOTA = 1_000_000;

const row = (over: Partial<CatalogRow> & { id: number }): CatalogRow => ({
  email: `u${over.id}@x`,
  subId: '',
  comment: '',
  group: '',
  enable: true,
  totalGB: 0,
  expiryTime: 0,
  used: 0,
  trafficEnable: true,
  lastOnline: 0,
  inboundIds: [],
  ...over,
});
const query = (over: Partial<PageQuery> = {}): PageQuery => ({
  page: 1,
  pageSize: 10_000,
  search: '',
  filter: '',
  protocol: '',
  sort: '',
  order: 'ascend',
  ...over,
});
const params = (over: Partial<BucketParams> = {}): BucketParams => ({
  now: NOW,
  onlineSince: NOW_SEC,
  expireDiffMs: 0,
  trafficDiffBytes: 0,
  ...over,
});
const noProtocols = (): undefined => undefined;
const idsOf = (cat: ClientCatalog, q: Partial<PageQuery> = {}, p: Partial<BucketParams> = {}): number[] =>
  cat.page(query(q), params(p), noProtocols).ids;

// ---- probes: a client's stored values read back through the buckets (the catalog exposes no row) ---------------

/** The smallest x in [lo, hi] for which the monotone `holds` is true; hi + 1 when it never is. */
function firstTrue(lo: number, hi: number, holds: (x: number) => boolean): number {
  let a = lo;
  let b = hi + 1;
  while (a < b) {
    const mid = Math.floor((a + b) / 2);
    if (holds(mid)) b = mid;
    else a = mid + 1;
  }
  return a;
}
/** Used bytes of an enabled client with quota QUOTA and no expiry: expiring exactly when trafficDiff > QUOTA - used. */
const usedOf = (cat: ClientCatalog, id: number): number =>
  QUOTA + 1 - firstTrue(0, QUOTA + 1, (d) => idsOf(cat, { filter: 'expiring' }, { trafficDiffBytes: d }).includes(id));
/** lastOnline of an enabled client: online exactly while onlineSince <= lastOnline. */
const lastOnlineOf = (cat: ClientCatalog, id: number): number =>
  firstTrue(0, 2 ** 33, (s) => !idsOf(cat, { filter: 'online' }, { onlineSince: s }).includes(id)) - 1;
/** Expiry of a client otherwise not depleted: depleted exactly from `now` = expiry on; null when never. */
const expiryOf = (cat: ClientCatalog, id: number): number | null => {
  const hi = 2 ** 43;
  const at = firstTrue(0, hi, (now) => idsOf(cat, { filter: 'depleted' }, { now }).includes(id));
  return at > hi ? null : at;
};

// ---- the brute-force reference --------------------------------------------------------------------------------

const lowerAscii = (s: string): string => s.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
const statusOf = (r: CatalogRow): StatusInput => ({
  enable: r.enable,
  totalGB: r.totalGB,
  expiryTime: r.expiryTime,
  up: r.used,
  down: 0,
  trafficEnable: r.trafficEnable,
  lastOnline: r.lastOnline,
});
const NEVER = Number.MAX_SAFE_INTEGER;
const sortKeyOf = (sort: PageQuery['sort'], r: CatalogRow): number | string => {
  switch (sort) {
    case 'enable':
      return r.enable ? 1 : 0;
    case 'inboundIds':
      return new Set(r.inboundIds).size;
    case 'traffic':
      return r.used;
    case 'remaining':
      return r.totalGB > 0 ? r.totalGB - r.used : NEVER;
    case 'expiryTime':
      return r.expiryTime > 0 ? r.expiryTime : NEVER;
    case 'email':
      return lowerAscii(r.email);
    case '':
      return 0;
  }
};

function referencePage(
  rows: Iterable<CatalogRow>,
  q: PageQuery,
  p: BucketParams,
  protocolOf: (id: number) => string | undefined,
) {
  const needle = lowerAscii(q.search.trim());
  const hits = [...rows].filter(
    (r) =>
      (q.group === undefined || r.group === q.group) &&
      (!q.protocol || r.inboundIds.some((id) => protocolOf(id) === q.protocol)) &&
      (!q.filter || inBucket(q.filter, statusOf(r), p)) &&
      (!needle || [r.email, r.subId, r.comment].some((f) => lowerAscii(f).includes(needle))),
  );
  const dir = q.order === 'descend' ? -1 : 1;
  hits.sort((a, b) => {
    const x = sortKeyOf(q.sort, a);
    const y = sortKeyOf(q.sort, b);
    return (x < y ? -dir : x > y ? dir : 0) || a.id - b.id;
  });
  const from = (q.page - 1) * q.pageSize;
  return { ids: hits.slice(from, from + q.pageSize).map((r) => r.id), filtered: hits.length };
}

function referenceSummary(rows: Iterable<CatalogRow>, p: BucketParams): ClientsSummary {
  const lists = {
    depleted: [] as string[],
    deactive: [] as string[],
    expiring: [] as string[],
    online: [] as string[],
  };
  const all = [...rows].sort((a, b) => a.id - b.id);
  for (const r of all) {
    const b = summaryBucket(statusOf(r), p);
    if (b !== 'active') lists[b].push(r.email);
    if (inBucket('online', statusOf(r), p)) lists.online.push(r.email);
  }
  const cap = (xs: string[]) => xs.slice(0, SUMMARY_EMAIL_CAP);
  return {
    total: all.length,
    active: all.length - lists.depleted.length - lists.deactive.length - lists.expiring.length,
    online: cap(lists.online),
    depleted: cap(lists.depleted),
    expiring: cap(lists.expiring),
    deactive: cap(lists.deactive),
    onlineCount: lists.online.length,
    depletedCount: lists.depleted.length,
    expiringCount: lists.expiring.length,
    deactiveCount: lists.deactive.length,
  };
}

/** applyMoves as specified: counters added, lastOnline = the tick's second, a delayed start begins. */
function referenceMoves(
  rows: Iterable<CatalogRow>,
  moves: readonly CounterMove[],
  atMs: number,
  onlyNewer: boolean,
  emails?: ReadonlySet<string>,
) {
  const byEmail = new Map([...rows].map((r) => [r.email, r]));
  const sec = Math.floor(atMs / 1000);
  for (const m of moves) {
    const r = byEmail.get(m.email);
    if (!r || (emails && !emails.has(m.email)) || (onlyNewer && r.lastOnline >= sec)) continue;
    r.used += m.up + m.down;
    r.lastOnline = sec;
    if (r.expiryTime < 0) r.expiryTime = atMs - r.expiryTime;
  }
}

// ---- random data ----------------------------------------------------------------------------------------------

/** mulberry32: a small seeded PRNG, so a failure replays. */
function prng(seed: number) {
  let s = seed >>> 0;
  const float = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(float() * n);
  return { int, chance: (q: number) => float() < q, pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]! };
}
type Rng = ReturnType<typeof prng>;
const shuffled = <T>(r: Rng, xs: T[]): T[] => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** Few characters, so substrings recur across clients; upper case, LIKE's wildcards and a non-ASCII case pair. */
const CHARS = ['a', 'b', 'c', 'X', 'Y', 'Z', '%', '_', '.', '@', '-', '1', 'é', 'É'];
const GROUPS = ['', 'g1', 'G1', 'team a', 'Ünï'];
const PROTOCOL_OF = new Map<number, string>([
  [1, 'vless'],
  [2, 'vmess'],
  [3, 'trojan'],
  [4, 'vless'],
  [5, 'shadowsocks'],
  [6, 'hysteria2'],
  [8, 'vmess'],
]);
const protocolOf = (id: number): string | undefined => PROTOCOL_OF.get(id); // inbound 7: unknown protocol
const PROTOCOLS = ['vless', 'vmess', 'trojan', 'shadowsocks', 'hysteria2', 'wireguard'];

const word = (r: Rng, min: number, max: number): string =>
  Array.from({ length: min + r.int(max - min + 1) }, () => r.pick(CHARS)).join('');
const randomCase = (r: Rng, s: string): string =>
  [...s].map((ch) => (r.chance(0.5) ? ch.toUpperCase() : ch.toLowerCase())).join('');
const piece = (r: Rng, s: string): string => {
  const from = r.int(s.length);
  return s.slice(from, from + 1 + r.int(Math.min(5, s.length - from)));
};

function randomExpiry(r: Rng): number {
  switch (r.int(6)) {
    case 0:
      return 0;
    case 1:
      return -(1 + r.int(30)) * DAY; // delayed start
    case 2:
      return NOW - 1 - r.int(30 * DAY); // past
    case 3:
      return NOW; // exactly now
    case 4:
      return NOW + 1 + r.int(3 * DAY); // near
    default:
      return NOW + 30 * DAY + r.int(300 * DAY); // far
  }
}

function randomFields(r: Rng): Omit<CatalogRow, 'id' | 'email'> {
  const totalGB = r.chance(0.5) ? 0 : 1 + r.int(1000);
  const inbounds = new Set<number>();
  for (let k = r.int(4); k > 0; k--) inbounds.add(1 + r.int(8));
  return {
    subId: r.chance(0.2) ? '' : word(r, 1, 8),
    comment: r.chance(0.4) ? '' : `${word(r, 1, 6)} ${word(r, 0, 6)}`,
    group: r.pick(GROUPS),
    enable: r.chance(0.8),
    trafficEnable: r.chance(0.85),
    totalGB,
    used: totalGB > 0 && r.chance(0.15) ? totalGB : r.int(1200),
    expiryTime: randomExpiry(r),
    lastOnline: r.chance(0.4) ? 0 : NOW_SEC - r.int(60),
    inboundIds: [...inbounds],
  };
}

function randomNeedle(r: Rng, rows: CatalogRow[]): string {
  const c = rows.length ? r.pick(rows) : row({ id: 0, email: 'none', subId: 'none' });
  switch (r.int(8)) {
    case 0:
      return '';
    case 1:
      return '   ';
    case 2:
      return ` ${randomCase(r, piece(r, c.email))} `; // trimmed
    case 3: // across email|subId: must not match unless some single field holds it
      return c.subId ? randomCase(r, c.email.slice(-1 - r.int(3)) + c.subId.slice(0, 1 + r.int(3))) : piece(r, c.email);
    case 4:
      return c.subId ? `${c.email.slice(-2)}\u0001${c.subId.slice(0, 2)}` : '\u0001';
    case 5: // across subId|comment
      return c.comment ? randomCase(r, c.subId.slice(-2) + c.comment.slice(0, 2)) : randomCase(r, piece(r, c.email));
    default: {
      const f = r.pick([c.email, c.subId, c.comment].filter(Boolean));
      return randomCase(r, piece(r, f));
    }
  }
}

function randomQuery(r: Rng, rows: CatalogRow[]): PageQuery {
  return {
    page: r.chance(0.5) ? 1 : 1 + r.int(r.chance(0.8) ? 6 : 3000),
    pageSize: r.pick([1, 3, 10, 25, 100, 1000, 5000]),
    search: r.chance(0.5) ? randomNeedle(r, rows) : '',
    filter: r.chance(0.6) ? r.pick(BUCKETS) : '',
    protocol: r.chance(0.3) ? r.pick(PROTOCOLS) : '',
    sort: r.pick(['', ...SORT_KEYS] as const),
    order: r.pick(['ascend', 'descend'] as const),
    ...(r.chance(0.25) ? { group: r.pick([...GROUPS, 'nope']) } : {}),
  };
}

function randomParams(r: Rng): BucketParams {
  return {
    now: r.chance(0.5) ? NOW : NOW - DAY + r.int(2 * DAY),
    onlineSince: NOW_SEC - r.pick([0, 20, 40]),
    expireDiffMs: r.pick([0, DAY, 7 * DAY]),
    trafficDiffBytes: r.pick([0, 50, 500]),
  };
}

/** The database the catalog mirrors: rows by id, one email each. */
class Truth {
  rows = new Map<number, CatalogRow>();
  private usedIds = new Set<number>();
  constructor(
    private r: Rng,
    private idSpace: number,
  ) {}

  list(): CatalogRow[] {
    return [...this.rows.values()];
  }
  byEmail(email: string): CatalogRow | undefined {
    return this.list().find((x) => x.email === email);
  }
  some(): CatalogRow {
    return this.r.pick(this.list());
  }
  /** The current rows of `emails`, as a store read would return them (copies). */
  read(emails: string[]): CatalogRow[] {
    return this.list()
      .filter((x) => emails.includes(x.email))
      .map(clone);
  }

  newId(): number {
    for (;;) {
      const id = 1 + this.r.int(this.idSpace); // not increasing: slots get appended out of id order
      if (!this.usedIds.has(id)) {
        this.usedIds.add(id);
        return id;
      }
    }
  }
  newEmail(): string {
    for (;;) {
      const e = word(this.r, 2, 8);
      if (!this.byEmail(e)) return e;
    }
  }
  add(email = this.newEmail()): CatalogRow {
    const x = { id: this.newId(), email, ...randomFields(this.r) };
    this.rows.set(x.id, x);
    return clone(x);
  }
}
const clone = (x: CatalogRow): CatalogRow => ({ ...x, inboundIds: [...x.inboundIds] });

/** One random mutation applied to the truth and told to the catalog the way its callers do. */
function randomStep(r: Rng, truth: Truth, cat: ClientCatalog): void {
  const op = truth.rows.size < 5 ? 0 : r.int(100);
  if (op < 15) {
    // a new client
    cat.put(truth.add());
  } else if (op < 20) {
    // a new client, learnt by a patch of its email
    const x = truth.add();
    cat.patch([x.email], [x]);
  } else if (op < 35) {
    // edited in place
    const x = truth.some();
    Object.assign(x, randomFields(r));
    if (r.chance(0.5)) cat.put(clone(x));
    else cat.patch([x.email], truth.read([x.email]));
  } else if (op < 43) {
    // deleted
    const x = truth.some();
    truth.rows.delete(x.id);
    if (r.chance(0.5)) cat.remove(x.email);
    else cat.patch([x.email], []);
  } else if (op < 48) {
    // deleted and created again under the same email (new id)
    const x = truth.some();
    truth.rows.delete(x.id);
    const again = truth.add(x.email);
    if (r.chance(0.5)) cat.put(again);
    else cat.patch([x.email], [again]);
  } else if (op < 56) {
    // renamed: keeps its id; to a fresh email or to one whose client was deleted first
    const x = truth.some();
    const old = x.email;
    const taken = r.chance(0.3) ? truth.some() : undefined;
    if (taken && taken !== x) truth.rows.delete(taken.id);
    x.email = taken && taken !== x ? taken.email : truth.newEmail();
    const emails = r.chance(0.5) ? [old, x.email] : [x.email, old];
    cat.patch(emails, truth.read(emails));
  } else if (op < 60) {
    // two clients swap emails
    const a = truth.some();
    const b = truth.some();
    [a.email, b.email] = [b.email, a.email];
    cat.patch([a.email, b.email], truth.read([a.email, b.email]));
  } else if (op < 97) {
    // a traffic tick, sometimes replayed (onlyNewer) or scoped to some emails
    const moved = new Set<string>();
    for (let k = 1 + r.int(20); k > 0; k--) moved.add(truth.some().email);
    const moves: CounterMove[] = [...moved, 'nobody@x'].map((email) => ({ email, up: r.int(300), down: r.int(300) }));
    const at = NOW - 30_000 + r.int(60_000);
    const onlyNewer = r.chance(0.3);
    const emails = r.chance(0.3) ? new Set([...moved].filter(() => r.chance(0.5))) : undefined;
    referenceMoves(truth.rows.values(), moves, at, onlyNewer, emails);
    cat.applyMoves(moves, at, onlyNewer, emails);
  } else {
    // an inbound deleted
    const id = 1 + r.int(8);
    for (const x of truth.rows.values()) x.inboundIds = x.inboundIds.filter((i) => i !== id);
    cat.dropInbound(id);
  }
}

function expectSameAsReference(r: Rng, truth: Truth, cat: ClientCatalog, queries: number): void {
  const rows = truth.list();
  expect(cat.count).toBe(rows.length);
  const p = randomParams(r);
  expect(cat.summary(p)).toEqual(referenceSummary(rows, p));
  for (let k = 0; k < queries; k++) {
    const q = randomQuery(r, rows);
    const qp = r.chance(0.5) ? p : randomParams(r);
    expect(cat.page(q, qp, protocolOf), JSON.stringify({ q, qp })).toEqual(referencePage(rows, q, qp, protocolOf));
  }
}

/** Random clients, then random mutations, comparing pages and the summary with the reference along the way. */
function randomRun(seed: number, clients: number, steps: number): void {
  const r = prng(seed);
  const truth = new Truth(r, clients * 20);
  const initial = Array.from({ length: clients }, () => truth.add());
  const cat = new ClientCatalog(initial); // ids in random order
  expectSameAsReference(r, truth, cat, 40);
  for (let step = 1; step <= steps; step++) {
    randomStep(r, truth, cat);
    if (step === Math.floor(steps / 2)) {
      // many removals at once: the dead slots get compacted
      for (const x of truth.list()) {
        if (!r.chance(0.6)) continue;
        truth.rows.delete(x.id);
        cat.remove(x.email);
      }
    }
    if (step % Math.ceil(steps / 25) === 0) expectSameAsReference(r, truth, cat, 25);
  }
  expectSameAsReference(r, truth, cat, 40);
}

// ---- tests ----------------------------------------------------------------------------------------------------

describe('ClientCatalog against a brute-force reference', () => {
  it('pages and summarises like the reference over a few thousand random clients and mutations', () => {
    randomRun(20261122, 3000, 1500);
  });

  it('pages and summarises like the reference over a few dozen clients (summary lists under the cap)', () => {
    for (const seed of [1, 2, 3]) randomRun(seed, 40, 400);
  });

  it('the summary lists keep the first SUMMARY_EMAIL_CAP emails by id when a bucket holds more', () => {
    const r = prng(5);
    const ids = shuffled(
      r,
      Array.from({ length: 3 * SUMMARY_EMAIL_CAP }, (_, i) => i + 1),
    );
    const cat = new ClientCatalog(ids.map((id) => row({ id, enable: false })));
    for (const id of ids.slice(0, SUMMARY_EMAIL_CAP / 2)) cat.remove(`u${id}@x`);
    const live = ids.slice(SUMMARY_EMAIL_CAP / 2).sort((a, b) => a - b);
    const s = cat.summary(params());
    expect(s.deactiveCount).toBe(live.length);
    expect(s.deactive).toEqual(live.slice(0, SUMMARY_EMAIL_CAP).map((id) => `u${id}@x`));
    expect(s).toMatchObject({ total: live.length, active: 0, online: [], onlineCount: 0 });
  });
});

describe('ClientCatalog.applyMoves', () => {
  const AT = NOW + 1999; // second NOW_SEC + 1
  const fresh = () =>
    new ClientCatalog([
      row({ id: 1, email: 'a', totalGB: QUOTA, used: 100, lastOnline: 5 }),
      row({ id: 2, email: 'b', totalGB: QUOTA, used: 200, lastOnline: 7 }),
    ]);

  it('adds up + down to used and sets lastOnline to the second of the tick', () => {
    const cat = fresh();
    cat.applyMoves([{ email: 'a', up: 30, down: 12 }], AT);
    expect([usedOf(cat, 1), lastOnlineOf(cat, 1)]).toEqual([142, NOW_SEC + 1]);
    expect([usedOf(cat, 2), lastOnlineOf(cat, 2)]).toEqual([200, 7]);
  });

  it('turns a negative expiry (delayed start) into at - expiry; other expiries stay', () => {
    const cat = new ClientCatalog([
      row({ id: 1, email: 'delayed', expiryTime: -3 * DAY }),
      row({ id: 2, email: 'dated', expiryTime: NOW + DAY }),
      row({ id: 3, email: 'never' }),
    ]);
    cat.applyMoves(
      ['delayed', 'dated', 'never'].map((email) => ({ email, up: 1, down: 0 })),
      AT,
    );
    expect([expiryOf(cat, 1), expiryOf(cat, 2), expiryOf(cat, 3)]).toEqual([AT + 3 * DAY, NOW + DAY, null]);
  });

  it('with onlyNewer, leaves clients whose lastOnline is already the tick second or later', () => {
    const sec = Math.floor(AT / 1000);
    const cat = new ClientCatalog([
      row({ id: 1, email: 'before', totalGB: QUOTA, used: 10, lastOnline: sec - 1 }),
      row({ id: 2, email: 'same', totalGB: QUOTA, used: 10, lastOnline: sec, expiryTime: -DAY }),
      row({ id: 3, email: 'after', totalGB: QUOTA, used: 10, lastOnline: sec + 1 }),
    ]);
    cat.applyMoves(
      ['before', 'same', 'after'].map((email) => ({ email, up: 5, down: 5 })),
      AT,
      true,
    );
    expect([1, 2, 3].map((id) => [usedOf(cat, id), lastOnlineOf(cat, id)])).toEqual([
      [20, sec],
      [10, sec],
      [10, sec + 1],
    ]);
    expect(expiryOf(cat, 2)).toBeNull(); // still waiting to start
  });

  it('with an emails set, touches only those emails', () => {
    const cat = fresh();
    cat.applyMoves(
      [
        { email: 'a', up: 1, down: 1 },
        { email: 'b', up: 1, down: 1 },
      ],
      AT,
      false,
      new Set(['b']),
    );
    expect([usedOf(cat, 1), usedOf(cat, 2)]).toEqual([100, 202]);
  });

  it('ignores moves of emails it does not hold', () => {
    const cat = fresh();
    cat.applyMoves([{ email: 'ghost', up: 1, down: 1 }], AT);
    expect(cat.has('ghost')).toBe(false);
    expect([usedOf(cat, 1), usedOf(cat, 2)]).toEqual([100, 200]);
  });
});

describe('ClientCatalog buckets at their boundaries', () => {
  it('quota used exactly is depleted; one byte short is not', () => {
    const cat = new ClientCatalog([row({ id: 1, totalGB: 100, used: 100 }), row({ id: 2, totalGB: 100, used: 99 })]);
    expect(idsOf(cat, { filter: 'depleted' })).toEqual([1]);
    expect(idsOf(cat, { filter: 'active' })).toEqual([2]);
  });

  it('expiry exactly now is depleted; one ms later is not', () => {
    const cat = new ClientCatalog([row({ id: 1, expiryTime: NOW }), row({ id: 2, expiryTime: NOW + 1 })]);
    expect(idsOf(cat, { filter: 'depleted' })).toEqual([1]);
    expect(cat.summary(params())).toMatchObject({ depletedCount: 1, depleted: ['u1@x'], active: 1 });
  });

  it('a negative expiry (delayed start) is neither depleted nor expiring, and sorts as no expiry', () => {
    const cat = new ClientCatalog([
      row({ id: 1, expiryTime: -DAY }),
      row({ id: 2, expiryTime: NOW + 10 * DAY }),
      row({ id: 3, expiryTime: 0 }),
    ]);
    const wide = { expireDiffMs: 365 * DAY };
    expect(idsOf(cat, { filter: 'depleted' }, wide)).toEqual([]);
    expect(idsOf(cat, { filter: 'expiring' }, wide)).toEqual([2]);
    expect(idsOf(cat, { sort: 'expiryTime' })).toEqual([2, 1, 3]);
    expect(idsOf(cat, { sort: 'expiryTime', order: 'descend' })).toEqual([1, 3, 2]);
  });

  it('auto-disabled (enable and traffic enable both off) is depleted; operator-disabled alone is deactive', () => {
    const cat = new ClientCatalog([
      row({ id: 1, enable: false, trafficEnable: false }),
      row({ id: 2, enable: false }),
      row({ id: 3, trafficEnable: false }),
    ]);
    expect(cat.summary(params())).toMatchObject({ depleted: ['u1@x'], deactive: ['u2@x'], active: 1, total: 3 });
  });
});

describe('ClientCatalog search', () => {
  const cat = new ClientCatalog([
    row({ id: 1, email: 'Alice@X', subId: 'sub%One', comment: 'team_a note' }),
    row({ id: 2, email: 'bob@x', subId: 'ÉCOLE', comment: '' }),
    row({ id: 3, email: 'carol@x', subId: 'c', comment: '100%' }),
  ]);

  it('matches a substring of email, subId or comment, ignoring ASCII case only', () => {
    expect(idsOf(cat, { search: 'aLiCe' })).toEqual([1]);
    expect(idsOf(cat, { search: 'ONE' })).toEqual([1]);
    expect(idsOf(cat, { search: 'NOTE' })).toEqual([1]);
    expect(idsOf(cat, { search: 'école' })).toEqual([]);
    expect(idsOf(cat, { search: 'ÉCO' })).toEqual([2]);
  });

  it('does not match across the end of one field and the start of the next', () => {
    expect(idsOf(cat, { search: '@xsub' })).toEqual([]); // email|subId
    expect(idsOf(cat, { search: 'oneteam' })).toEqual([]); // subId|comment
    expect(idsOf(cat, { search: 'x\u0001sub' })).toEqual([]);
    expect(idsOf(cat, { search: '\u0001' })).toEqual([]);
  });

  it('takes % and _ literally', () => {
    expect(idsOf(cat, { search: '%' })).toEqual([1, 3]);
    expect(idsOf(cat, { search: '_' })).toEqual([1]);
    expect(idsOf(cat, { search: 'b%o' })).toEqual([1]);
    expect(idsOf(cat, { search: 'a_b' })).toEqual([]);
  });

  it('trims the needle; a blank needle matches everyone', () => {
    expect(idsOf(cat, { search: '  bob ' })).toEqual([2]);
    expect(cat.page(query({ search: '   ' }), params(), noProtocols)).toEqual({ ids: [1, 2, 3], filtered: 3 });
  });
});

describe('ClientCatalog storage', () => {
  it('an unknown group gives an empty page', () => {
    const cat = new ClientCatalog([row({ id: 1, group: 'g' }), row({ id: 2, group: '' })]);
    expect(cat.page(query({ group: 'nope' }), params(), noProtocols)).toEqual({ ids: [], filtered: 0 });
    expect(idsOf(cat, { group: 'g' })).toEqual([1]);
    expect(idsOf(cat, { group: '' })).toEqual([2]);
  });

  it('ids appended out of order still page and summarise in id order', () => {
    const cat = new ClientCatalog([5, 3, 9, 1].map((id) => row({ id, enable: false })));
    cat.put(row({ id: 2, enable: false }));
    expect(idsOf(cat)).toEqual([1, 2, 3, 5, 9]);
    expect(cat.summary(params()).deactive).toEqual(['u1@x', 'u2@x', 'u3@x', 'u5@x', 'u9@x']);
    expect(idsOf(cat, { page: 2, pageSize: 2 })).toEqual([3, 5]);
  });

  it('many removals (compaction of dead slots) keep pages, counts and lookups right', () => {
    const cat = new ClientCatalog(Array.from({ length: 100 }, (_, i) => row({ id: i + 1, used: i })));
    for (let id = 1; id <= 100; id++) if (id % 10 !== 0) cat.remove(`u${id}@x`);
    expect(cat.count).toBe(10);
    expect(idsOf(cat)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    cat.put(row({ id: 15, used: 1000 }));
    cat.remove('u20@x');
    expect(idsOf(cat, { sort: 'traffic', order: 'descend', pageSize: 3 })).toEqual([15, 100, 90]);
    expect(cat.page(query({ page: 4, pageSize: 3 }), params(), noProtocols)).toEqual({ ids: [100], filtered: 10 });
    expect(cat.has('u20@x')).toBe(false);
    expect(cat.has('u30@x')).toBe(true);
    cat.applyMoves([{ email: 'u30@x', up: 5000, down: 0 }], NOW);
    expect(idsOf(cat, { sort: 'traffic', order: 'descend', pageSize: 1 })).toEqual([30]);
  });

  it('a new id under a known email replaces the old client', () => {
    const cat = new ClientCatalog([row({ id: 1, email: 'a' }), row({ id: 2, email: 'b' })]);
    cat.put(row({ id: 3, email: 'a' }));
    expect(cat.count).toBe(2);
    expect(idsOf(cat)).toEqual([2, 3]);
  });

  it('a patch renames in place, drops emails without a row, and takes an email over from a deleted client', () => {
    const cat = new ClientCatalog([row({ id: 1, email: 'a' }), row({ id: 2, email: 'b' }), row({ id: 3, email: 'c' })]);
    cat.patch(['a', 'renamed'], [row({ id: 1, email: 'renamed' })]);
    expect([cat.has('a'), cat.has('renamed'), cat.count]).toEqual([false, true, 3]);
    expect(idsOf(cat, { search: 'renamed' })).toEqual([1]);
    cat.patch(['b', 'c'], [row({ id: 3, email: 'b' })]); // b deleted, then c renamed to b
    expect([cat.has('c'), cat.count]).toEqual([false, 2]);
    expect(idsOf(cat, { search: 'b' })).toEqual([3]);
    expect(idsOf(cat)).toEqual([1, 3]);
  });

  it('dropping an inbound detaches it and keeps the other attachments', () => {
    const cat = new ClientCatalog([
      row({ id: 1, inboundIds: [1, 2] }),
      row({ id: 2, inboundIds: [2] }),
      row({ id: 3, inboundIds: [1] }),
    ]);
    const protocols = new Map([
      [1, 'vless'],
      [2, 'vmess'],
    ]);
    const byProtocol = (protocol: string) => cat.page(query({ protocol }), params(), (id) => protocols.get(id)).ids;
    cat.dropInbound(2);
    expect(byProtocol('vmess')).toEqual([]);
    expect(byProtocol('vless')).toEqual([1, 3]);
    expect(idsOf(cat, { sort: 'inboundIds', order: 'descend' })).toEqual([1, 3, 2]);
    cat.put(row({ id: 4, inboundIds: [1] }));
    expect(byProtocol('vless')).toEqual([1, 3, 4]);
  });

  it('the order applies to the sort key only: ties stay in id order both ways', () => {
    const cat = new ClientCatalog([4, 2, 3, 1].map((id) => row({ id, enable: id % 2 === 0 })));
    expect(idsOf(cat, { sort: 'enable' })).toEqual([1, 3, 2, 4]);
    expect(idsOf(cat, { sort: 'enable', order: 'descend' })).toEqual([2, 4, 1, 3]);
    expect(idsOf(cat, { order: 'descend' })).toEqual([1, 2, 3, 4]);
  });
});
