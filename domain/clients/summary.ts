// The paged list's summary (counts per status bucket, capped email lists, group names), kept between requests so
// that a page request at 100,000 clients does not re-classify every client:
// - a client mutation marks its emails; the next request re-reads just those clients and patches them in;
// - counters and the clock move without events: once the summary is a TTL old, the next request catches up by
//   re-reading the clients whose counters moved or whose expiry passed since, and the online ones;
// - a full classification (in batches, other work running between them) happens at start, after a change of the
//   bucket thresholds or of "all" clients, when too many clients would have to be re-read (then in the background
//   while the summary is served once more), and every minute in the background as a backstop.
import type { BucketParams, ClientsSummary, StatusRow } from './model.js';
import { SUMMARY_EMAIL_CAP } from './model.js';

/** Lets pending I/O (other requests) run: setImmediate where the runtime has it (setTimeout waits ≥ 1 ms). */
const nextTurn = (): Promise<void> => new Promise((resolve) => {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (immediate) immediate(resolve);
  else setTimeout(resolve, 0);
});

/** Up to this many marked emails are patched; more mean a full rebuild. */
export const PATCH_MAX = 2000;

type ListKey = 'd' | 'x' | 'e' | 'o';

/** One list of the summary: every member (email → id) and the first SUMMARY_EMAIL_CAP by id, kept incrementally. */
class MemberList {
  private members = new Map<string, number>();
  private head: { email: string; id: number }[] | null = [];

  get size(): number {
    return this.members.size;
  }

  put(email: string, id: number): void {
    this.members.set(email, id);
    const head = this.head;
    if (!head) return;
    const last = head[head.length - 1];
    if (head.length >= SUMMARY_EMAIL_CAP && last && id > last.id) return;
    let at = head.length;
    while (at > 0 && head[at - 1]!.id > id) at--;
    head.splice(at, 0, { email, id });
    if (head.length > SUMMARY_EMAIL_CAP) head.pop();
  }

  remove(email: string): void {
    const id = this.members.get(email);
    if (id === undefined) return;
    this.members.delete(email);
    // Leaving the head means the next member by id must move up: rebuilt lazily from all members.
    if (this.head?.some((m) => m.email === email)) this.head = null;
  }

  all(): string[] {
    return [...this.members.keys()];
  }

  emails(): string[] {
    if (!this.head) {
      this.head = [...this.members].sort((a, b) => a[1] - b[1]).slice(0, SUMMARY_EMAIL_CAP).map(([email, id]) => ({ email, id }));
    }
    return this.head.map((m) => m.email);
  }
}

/** The clients that are not active-and-offline, by list; active = total minus the three other buckets. */
export class StatusBook {
  private lists: Record<ListKey, MemberList> = { d: new MemberList(), x: new MemberList(), e: new MemberList(), o: new MemberList() };

  constructor(rows: StatusRow[]) {
    for (const r of rows) this.put(r);
  }

  /** Replaces what is known of `emails` by `rows` (their current state; an email without a row is active and offline, or gone). */
  patch(emails: Iterable<string>, rows: StatusRow[]): void {
    for (const e of emails) for (const list of Object.values(this.lists)) list.remove(e);
    for (const r of rows) this.put(r);
  }

  /** Every client counted as online. */
  onlineEmails(): string[] {
    return this.lists.o.all();
  }

  summary(total: number): ClientsSummary {
    const { d, x, e, o } = this.lists;
    return {
      total,
      active: Math.max(0, total - d.size - x.size - e.size),
      online: o.emails(), depleted: d.emails(), expiring: e.emails(), deactive: x.emails(),
      onlineCount: o.size, depletedCount: d.size, expiringCount: e.size, deactiveCount: x.size,
    };
  }

  private put(r: StatusRow): void {
    if (r.bucket !== 'a') this.lists[r.bucket].put(r.email, r.id);
    if (r.online) this.lists.o.put(r.email, r.id);
  }
}

export interface SummarySource {
  statuses(p: BucketParams, scope: { emails: string[] }): Promise<StatusRow[]>;
  /**
   * Emails whose status may have changed between `fromMs` and `toMs` without an event (counters moved, expiry or
   * expiry minus `expireDiffMs` passed); null when there are more than `limit`.
   */
  changedSince(fromMs: number, toMs: number, expireDiffMs: number, limit: number): Promise<string[] | null>;
  /** Batches in id order (their size is the database's choice); a turn of the event loop runs between them. */
  statusBatch(p: BucketParams, fromId: number): Promise<{ rows: StatusRow[]; next: number | null }>;
  count(): Promise<number>;
  groupNames(): Promise<string[]>;
}

/** The summary's state: `at` is when it was last brought up to date (rebuilt or caught up), `builtAt` rebuilt. */
interface Snapshot {
  book: StatusBook;
  at: number;
  builtAt: number;
  gen: number;
}

/**
 * A backstop against changes that neither send an event nor move counters or expiry (a write by another process):
 * a summary rebuilt longer ago than this is rebuilt again in the background while it keeps being served.
 */
export const FULL_REBUILD_MS = 60_000;

export class SummaryCache {
  private snap: Snapshot | null = null;
  /** Bumped by every change that needs a full rebuild; a snapshot of an older generation is not used. */
  private gen = 0;
  /** Emails changed since they were last read. */
  private marked = new Set<string>();
  /** While a rebuild runs: emails changed or patched meanwhile (the rebuild may have read them before the change). */
  private touched: Set<string> | null = null;
  private rebuilding: Promise<void> | null = null;
  private groups: string[] | null = null;
  private groupsVersion = 0;

  constructor(private source: SummarySource, private ttlMs: number) {}

  clientsChanged(emails: readonly string[]): void {
    if (this.marked.size + emails.length > PATCH_MAX) return this.everythingChanged();
    for (const e of emails) {
      this.marked.add(e);
      this.touched?.add(e);
    }
  }

  everythingChanged(): void {
    this.gen++;
    this.marked.clear();
  }

  /** Rebuilds in the background unless the summary is current or a rebuild runs (errors wait for the next get). */
  warm(p: BucketParams): Promise<void> {
    const s = this.snap;
    if (s && s.gen === this.gen) return Promise.resolve();
    return this.rebuild(p).catch(() => undefined);
  }

  groupsChanged(): void {
    this.groups = null;
    this.groupsVersion++;
  }

  async get(p: BucketParams): Promise<{ summary: ClientsSummary; groups: string[] }> {
    // A generation that keeps changing (a stream of bulk changes) gets three rebuilds, then the latest one is used.
    for (let attempt = 0; attempt < 3; attempt++) {
      const s = this.snap;
      const age = s ? p.now - s.at : Infinity;
      const usable = !!s && s.gen === this.gen && age >= 0;
      if (usable && p.now - s!.builtAt >= FULL_REBUILD_MS) this.rebuild(p).catch(() => undefined);
      if (usable && age < this.ttlMs) break;
      if (usable) {
        if (await this.catchUp(s!, p)) break;
        // Too much moved to re-read client by client: rebuilt in the background while the summary is less than twice
        // the TTL old (served once more meanwhile), else before answering.
        if (age < 2 * this.ttlMs) {
          this.rebuild(p).catch(() => undefined);
          break;
        }
      }
      await this.rebuild(p);
    }
    const snap = this.snap!;
    if (this.marked.size) {
      const emails = [...this.marked];
      this.marked.clear();
      for (const e of emails) this.touched?.add(e);
      try {
        snap.book.patch(emails, await this.source.statuses(p, { emails }));
      } catch (err) {
        for (const e of emails) this.marked.add(e);
        throw err;
      }
    }
    const version = this.groupsVersion;
    const [total, groups] = await Promise.all([this.source.count(), this.groups ?? this.source.groupNames()]);
    if (version === this.groupsVersion) this.groups = groups;
    return { summary: snap.book.summary(total), groups };
  }

  /**
   * Marks the clients whose status may have moved without an event since the summary was last brought up to date:
   * counters moved (quota buckets, online), expiry (or expiry minus expireDiff) passed, online clients gone quiet.
   * False when they are more than PATCH_MAX (a full rebuild is cheaper then).
   */
  private async catchUp(s: Snapshot, p: BucketParams): Promise<boolean> {
    const online = s.book.onlineEmails();
    const room = PATCH_MAX - online.length - this.marked.size;
    if (room < 0) return false;
    const moved = await this.source.changedSince(s.at, p.now, p.expireDiffMs, room);
    if (moved === null) return false;
    if (this.snap !== s) return true; // a rebuild landed meanwhile: newer than this catch-up
    for (const e of [...online, ...moved]) {
      this.marked.add(e);
      this.touched?.add(e);
    }
    s.at = p.now;
    return true;
  }

  /** One rebuild at a time; callers during one share it. */
  private rebuild(p: BucketParams): Promise<void> {
    if (this.rebuilding) return this.rebuilding;
    const gen = this.gen;
    const touched = (this.touched = new Set());
    this.rebuilding = this.readAll(p).then((rows) => {
      this.snap = { book: new StatusBook(rows), at: p.now, builtAt: p.now, gen };
      for (const e of touched) this.marked.add(e);
    }).finally(() => {
      this.rebuilding = null;
      this.touched = null;
    });
    return this.rebuilding;
  }

  /** Every client's status, batch by batch, letting other work run between batches (SQLite reads hold the event loop). */
  private async readAll(p: BucketParams): Promise<StatusRow[]> {
    const rows: StatusRow[] = [];
    for (let from: number | null = 1; from !== null;) {
      const batch = await this.source.statusBatch(p, from);
      rows.push(...batch.rows);
      from = batch.next;
      if (from !== null) await nextTurn();
    }
    return rows;
  }
}
