// The clients as the paged list sees them, in memory: for every client the fields its search, filters, sorts and
// the status summary read (not its secrets or the other row fields). A page request scans these arrays instead of
// the database (why and what it costs: docs/decisions/0001-in-memory-client-catalog.md), then reads only the rows of
// the page. The status buckets are computed at the moment of the request with the rules of rules.ts, so expiry
// passing, clients going quiet and new thresholds need no re-read. Kept current by catalog-cache.ts.
//
// Storage is columnar (typed arrays indexed by slot, slots in id order) to keep it small.
import type { BucketParams, ClientsSummary, PageQuery } from './model.js';
import { SUMMARY_EMAIL_CAP } from './model.js';
import { inBucket, summaryBucket, type StatusInput } from './rules.js';

/** What the catalog keeps of one client (read by storage: ClientsRepo.catalogRows / catalogBatch). */
export interface CatalogRow {
  id: number;
  email: string;
  subId: string;
  comment: string;
  group: string;
  enable: boolean;
  totalGB: number;
  expiryTime: number;
  /** up + down. */
  used: number;
  /** client_traffics.enable (false = auto-disabled by the panel); true without a counters row. */
  trafficEnable: boolean;
  /** Unix seconds; 0 never. */
  lastOnline: number;
  inboundIds: number[];
}

/** Counters a traffic tick moved. */
export interface CounterMove {
  email: string;
  up: number;
  down: number;
}

/** The paged list's sort value for "no end" (no quota, no expiry), as large as the SQL it replaced used. */
const NEVER = Number.MAX_SAFE_INTEGER;
const ENABLE = 1;
const TRAFFIC_ENABLE = 2;
const DEAD = 4;
/** Sorting every match beats keeping the best K once K is this large. */
const SELECT_MAX = 2000;

/** Lower-cases ASCII letters only: the case-insensitivity of SQLite's LIKE and of the search the API has always had. */
const asciiLower = (s: string): string => (/[A-Z]/.test(s) ? s.replace(/[A-Z]/g, (ch) => ch.toLowerCase()) : s);

/** Values stored once and referred to by number (group names, attachment lists: few distinct values, many clients). */
class Interned<T> {
  readonly values: T[] = [];
  private index = new Map<string, number>();

  of(key: string, value: () => T): number {
    let at = this.index.get(key);
    if (at === undefined) {
      at = this.values.push(value()) - 1;
      this.index.set(key, at);
    }
    return at;
  }

  find(key: string): number | undefined {
    return this.index.get(key);
  }

  /** Re-keys every value after they were changed in place. */
  reindex(key: (v: T) => string): void {
    this.index.clear();
    this.values.forEach((v, i) => {
      if (!this.index.has(key(v))) this.index.set(key(v), i);
    });
  }
}

const comboKey = (ids: readonly number[]): string => ids.join(',');

export class ClientCatalog {
  private cap = 0;
  /** Slots in use, live and dead. */
  private size = 0;
  private liveCount = 0;
  private ids = new Float64Array(0);
  private total = new Float64Array(0);
  private expiry = new Float64Array(0);
  private used = new Float64Array(0);
  private lastOnline = new Float64Array(0);
  private flags = new Uint8Array(0);
  private groupOf = new Uint32Array(0);
  private comboOf = new Uint32Array(0);
  /** Where email and subId end inside `search` (both hold no control characters, so chr(1) separates the fields). */
  private emailLen = new Uint16Array(0);
  private subLen = new Uint16Array(0);
  private emails: string[] = [];
  /** ASCII-lower-cased "email␁subId␁comment". */
  private search: string[] = [];
  private slots = new Map<string, number>();
  private groups = new Interned<string>();
  private combos = new Interned<number[]>();
  /** False once a slot was appended with a smaller id than the one before it (slots are then re-sorted). */
  private ordered = true;
  /** One client's status inputs, reused (no allocation per client per scan). */
  private scratch: StatusInput = {
    enable: false,
    totalGB: 0,
    expiryTime: 0,
    up: 0,
    down: 0,
    trafficEnable: true,
    lastOnline: 0,
  };

  constructor(rows: Iterable<CatalogRow> = []) {
    for (const r of rows) this.put(r);
  }

  get count(): number {
    return this.liveCount;
  }

  has(email: string): boolean {
    return this.slots.has(email);
  }

  /** Adds or replaces a client (by email; a new id for a known email means the old client is gone). */
  put(r: CatalogRow): void {
    let slot = this.slots.get(r.email);
    if (slot !== undefined && this.ids[slot] !== r.id) {
      this.kill(slot);
      slot = undefined;
    }
    if (slot === undefined) {
      if (this.size === this.cap) this.grow(Math.max(1024, this.cap * 2));
      slot = this.size++;
      if (slot > 0 && this.ids[slot - 1]! > r.id) this.ordered = false;
      this.slots.set(r.email, slot);
      this.liveCount++;
    }
    this.ids[slot] = r.id;
    this.total[slot] = r.totalGB;
    this.expiry[slot] = r.expiryTime;
    this.used[slot] = r.used;
    this.lastOnline[slot] = r.lastOnline;
    this.flags[slot] = (r.enable ? ENABLE : 0) | (r.trafficEnable ? TRAFFIC_ENABLE : 0);
    this.groupOf[slot] = this.groups.of(r.group, () => r.group);
    const inbounds = [...new Set(r.inboundIds)].sort((a, b) => a - b);
    this.comboOf[slot] = this.combos.of(comboKey(inbounds), () => inbounds);
    this.emailLen[slot] = r.email.length;
    this.subLen[slot] = r.subId.length;
    this.emails[slot] = r.email;
    this.search[slot] = asciiLower(`${r.email}\u0001${r.subId}\u0001${r.comment}`);
  }

  remove(email: string): void {
    const slot = this.slots.get(email);
    if (slot !== undefined) this.kill(slot);
  }

  /** Replaces what is known of `emails` by `rows` (their current state; an email without a row is gone). */
  patch(emails: Iterable<string>, rows: CatalogRow[]): void {
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const e of emails) {
      const slot = this.slots.get(e);
      if (slot === undefined) continue;
      const row = byId.get(this.ids[slot]!);
      if (row?.email === e) continue; // updated in place by put() below
      if (row && !this.slots.has(row.email)) {
        // Renamed: keeps its slot (and the id order of the slots)
        this.slots.delete(e);
        this.slots.set(row.email, slot);
        this.emails[slot] = row.email;
      } else {
        this.kill(slot);
      }
    }
    for (const r of [...rows].sort((a, b) => a.id - b.id)) this.put(r);
  }

  /**
   * Applies a traffic tick at `atMs` as the database did (storage/repos/traffic.ts applyDeltas): counters added,
   * lastOnline set, a delayed start (negative expiry) begins. With `onlyNewer`, clients whose lastOnline already
   * shows this tick are left alone (their row was read after the tick was stored).
   */
  applyMoves(moves: readonly CounterMove[], atMs: number, onlyNewer = false, emails?: ReadonlySet<string>): void {
    const sec = Math.floor(atMs / 1000);
    for (const m of moves) {
      if (emails && !emails.has(m.email)) continue;
      const slot = this.slots.get(m.email);
      if (slot === undefined) continue;
      if (onlyNewer && this.lastOnline[slot]! >= sec) continue;
      this.used[slot] = this.used[slot]! + m.up + m.down;
      this.lastOnline[slot] = sec;
      if (this.expiry[slot]! < 0) this.expiry[slot] = atMs - this.expiry[slot]!;
    }
  }

  /** An inbound was deleted: its clients are detached from it (and keep their other attachments). */
  dropInbound(id: number): void {
    let changed = false;
    for (const ids of this.combos.values) {
      const at = ids.indexOf(id);
      if (at >= 0) {
        ids.splice(at, 1);
        changed = true;
      }
    }
    if (changed) this.combos.reindex(comboKey);
  }

  /** The group labels live clients carry (not the empty one), in no particular order. */
  carriedGroups(): string[] {
    const carried = new Uint8Array(this.groups.values.length);
    for (let i = 0; i < this.size; i++) if (!(this.flags[i]! & DEAD)) carried[this.groupOf[i]!] = 1;
    return this.groups.values.filter((name, g) => carried[g] && name !== '');
  }

  /** Counts per bucket over every client, and the first SUMMARY_EMAIL_CAP emails of each list by id. */
  summary(p: BucketParams): ClientsSummary {
    this.tidy();
    const lists = {
      depleted: [] as string[],
      deactive: [] as string[],
      expiring: [] as string[],
      online: [] as string[],
    };
    const counts = { depleted: 0, deactive: 0, expiring: 0, online: 0 };
    for (let i = 0; i < this.size; i++) {
      if (this.flags[i]! & DEAD) continue;
      const c = this.input(i);
      const b = summaryBucket(c, p);
      if (b !== 'active') {
        counts[b]++;
        if (lists[b].length < SUMMARY_EMAIL_CAP) lists[b].push(this.emails[i]!);
      }
      if (inBucket('online', c, p)) {
        counts.online++;
        if (lists.online.length < SUMMARY_EMAIL_CAP) lists.online.push(this.emails[i]!);
      }
    }
    return {
      total: this.liveCount,
      active: this.liveCount - counts.depleted - counts.deactive - counts.expiring,
      ...lists,
      onlineCount: counts.online,
      depletedCount: counts.depleted,
      expiringCount: counts.expiring,
      deactiveCount: counts.deactive,
    };
  }

  /**
   * The ids of one page and how many clients match: search (ASCII-case-insensitive substring of email, subId or
   * comment), protocol (of any attached inbound, by `protocolOf`), inbound, bucket filter, group; sorted by the key,
   * then id.
   */
  page(
    q: PageQuery,
    p: BucketParams,
    protocolOf: (inboundId: number) => string | undefined,
  ): { ids: number[]; filtered: number } {
    this.tidy();
    const needle = asciiLower(q.search.trim());
    const perField = needle.includes('\u0001'); // could span two fields of `search`: each field is tested alone
    let group = -1;
    if (q.group !== undefined) {
      const g = this.groups.find(q.group);
      if (g === undefined) return { ids: [], filtered: 0 };
      group = g;
    }
    // Protocol and inbound filters are decided once per distinct attachment list, not per client.
    let comboOk: Uint8Array | null = null;
    if (q.protocol || q.inboundId !== undefined) {
      comboOk = new Uint8Array(this.combos.values.length);
      this.combos.values.forEach((ids, k) => {
        const protocolOk = !q.protocol || ids.some((id) => protocolOf(id) === q.protocol);
        const inboundOk = q.inboundId === undefined || ids.includes(q.inboundId);
        comboOk![k] = protocolOk && inboundOk ? 1 : 0;
      });
    }
    const matches = new Int32Array(this.liveCount);
    let n = 0;
    for (let i = 0; i < this.size; i++) {
      if (this.flags[i]! & DEAD) continue;
      if (group >= 0 && this.groupOf[i] !== group) continue;
      if (comboOk && !comboOk[this.comboOf[i]!]) continue;
      if (q.filter && !inBucket(q.filter, this.input(i), p)) continue;
      if (needle && !(perField ? this.fields(i).some((f) => f.includes(needle)) : this.search[i]!.includes(needle)))
        continue;
      matches[n++] = i;
    }
    const from = (q.page - 1) * q.pageSize;
    if (from >= n) return { ids: [], filtered: n };
    const want = Math.min(n, from + q.pageSize);
    const order = q.sort ? this.best(matches.subarray(0, n), want, q) : matches.subarray(0, want);
    return { ids: Array.from(order.subarray(from, want), (slot) => this.ids[slot]!), filtered: n };
  }

  /** The first `want` of `slots` in the query's order (key, then id ascending). */
  private best(slots: Int32Array, want: number, q: PageQuery): Int32Array {
    // Keys are computed once per match, indexed by the match's position in `slots` (not by slot: no array the size
    // of the whole catalog on every sorted request); positions are ordered, then mapped back to slots.
    const dir = q.order === 'descend' ? -1 : 1;
    const id = (i: number) => this.ids[slots[i]!]!;
    let cmp: (a: number, b: number) => number;
    if (q.sort === 'email') {
      const keys = Array.from(slots, (s) => this.search[s]!.slice(0, this.emailLen[s]!));
      cmp = (a, b) => {
        const x = keys[a]!;
        const y = keys[b]!;
        return x === y ? id(a) - id(b) : x < y ? -dir : dir;
      };
    } else {
      const key = this.sortKey(q.sort as Exclude<PageQuery['sort'], '' | 'email'>);
      const keys = Float64Array.from(slots, key);
      cmp = (a, b) => (keys[a]! - keys[b]!) * dir || id(a) - id(b);
    }
    let order: Int32Array;
    if (want > SELECT_MAX || want * 2 >= slots.length) {
      order = Int32Array.from(slots, (_, i) => i)
        .sort(cmp)
        .subarray(0, want);
    } else {
      // Keep the best `want` seen so far, sorted; most clients are worse than the last kept one and cost one compare.
      order = new Int32Array(want);
      let kept = 0;
      for (let i = 0; i < slots.length; i++) {
        if (kept === want && cmp(i, order[kept - 1]!) >= 0) continue;
        let at = kept < want ? kept : want - 1;
        while (at > 0 && cmp(i, order[at - 1]!) < 0) {
          order[at] = order[at - 1]!;
          at--;
        }
        order[at] = i;
        if (kept < want) kept++;
      }
    }
    return order.map((i) => slots[i]!);
  }

  private sortKey(sort: 'enable' | 'inboundIds' | 'traffic' | 'remaining' | 'expiryTime'): (slot: number) => number {
    switch (sort) {
      case 'enable':
        return (s) => this.flags[s]! & ENABLE;
      case 'inboundIds':
        return (s) => this.combos.values[this.comboOf[s]!]!.length;
      case 'traffic':
        return (s) => this.used[s]!;
      case 'remaining':
        return (s) => (this.total[s]! > 0 ? this.total[s]! - this.used[s]! : NEVER);
      case 'expiryTime':
        return (s) => (this.expiry[s]! > 0 ? this.expiry[s]! : NEVER);
    }
  }

  private fields(slot: number): string[] {
    const s = this.search[slot]!;
    const e = this.emailLen[slot]!;
    const sub = this.subLen[slot]!;
    return [s.slice(0, e), s.slice(e + 1, e + 1 + sub), s.slice(e + sub + 2)];
  }

  private input(slot: number): StatusInput {
    const c = this.scratch;
    const f = this.flags[slot]!;
    c.enable = (f & ENABLE) !== 0;
    c.trafficEnable = (f & TRAFFIC_ENABLE) !== 0;
    c.totalGB = this.total[slot]!;
    c.expiryTime = this.expiry[slot]!;
    c.up = this.used[slot]!;
    c.down = 0;
    c.lastOnline = this.lastOnline[slot]!;
    return c;
  }

  private kill(slot: number): void {
    this.flags[slot] = this.flags[slot]! | DEAD;
    this.slots.delete(this.emails[slot]!);
    this.emails[slot] = '';
    this.search[slot] = '';
    this.liveCount--;
  }

  /** Drops dead slots and restores id order when either is due (before a scan). */
  private tidy(): void {
    const dead = this.size - this.liveCount;
    if (this.ordered && dead * 4 <= this.size) return;
    const live: number[] = [];
    for (let i = 0; i < this.size; i++) if (!(this.flags[i]! & DEAD)) live.push(i);
    if (!this.ordered) live.sort((a, b) => this.ids[a]! - this.ids[b]!);
    const cols = [
      this.ids,
      this.total,
      this.expiry,
      this.used,
      this.lastOnline,
      this.flags,
      this.groupOf,
      this.comboOf,
      this.emailLen,
      this.subLen,
    ];
    for (const col of cols) {
      const copy = col.slice(0, this.size);
      live.forEach((from, to) => {
        col[to] = copy[from]!;
      });
    }
    this.emails = live.map((i) => this.emails[i]!);
    this.search = live.map((i) => this.search[i]!);
    this.size = live.length;
    this.slots = new Map(this.emails.map((e, i) => [e, i]));
    this.ordered = true;
  }

  private grow(cap: number): void {
    const widen = <A extends Float64Array | Uint8Array | Uint32Array | Uint16Array>(
      a: A,
      make: (n: number) => A,
    ): A => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.ids = widen(this.ids, (n) => new Float64Array(n));
    this.total = widen(this.total, (n) => new Float64Array(n));
    this.expiry = widen(this.expiry, (n) => new Float64Array(n));
    this.used = widen(this.used, (n) => new Float64Array(n));
    this.lastOnline = widen(this.lastOnline, (n) => new Float64Array(n));
    this.flags = widen(this.flags, (n) => new Uint8Array(n));
    this.groupOf = widen(this.groupOf, (n) => new Uint32Array(n));
    this.comboOf = widen(this.comboOf, (n) => new Uint32Array(n));
    this.emailLen = widen(this.emailLen, (n) => new Uint16Array(n));
    this.subLen = widen(this.subLen, (n) => new Uint16Array(n));
    this.cap = cap;
  }
}
