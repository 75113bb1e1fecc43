// Keeps the clients catalog (catalog.ts) current without re-reading every client:
// - a client mutation marks its emails; the next page request re-reads just those clients (one read at a time);
// - a traffic tick's moved counters are added in memory, as the database added them (exact, no read);
// - a deleted inbound is dropped from the attachments in memory;
// - everything is read again (in batches, other work running between them) at start, after a change of "all"
//   clients or of more than PATCH_MAX at once, and every FULL_REBUILD_MS in the background as a backstop against
//   writes that send no event (another process on the database). Until then such a write is not seen.
// Reads take time; what changes in memory meanwhile is journaled and replayed on what they read, and clients changed
// during a full read are read again after it.
import { ClientCatalog, type CatalogRow, type CounterMove } from './catalog.js';
import { compareGroupNames, type BucketParams, type ClientsSummary, type PageQuery } from './model.js';

/** Lets pending I/O (other requests) run: setImmediate where the runtime has it (setTimeout waits ≥ 1 ms). */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
    if (immediate) immediate(resolve);
    else setTimeout(resolve, 0);
  });

/** Up to this many changed emails are re-read one by one; more mean a full read. */
export const PATCH_MAX = 10_000;

/** A catalog read longer ago than this is read again in the background (while it keeps being served). */
export const FULL_REBUILD_MS = 300_000;

export interface CatalogSource {
  /** The current rows of these emails (an email without a row is gone). */
  catalogRows(emails: string[]): Promise<CatalogRow[]>;
  /** Rows from id `fromId` on, in id order, as many as the database reads well at once; `next` null after the last. */
  catalogBatch(fromId: number): Promise<{ rows: CatalogRow[]; next: number | null }>;
  /** The stored group names (the labels clients carry come from the catalog). */
  storedGroupNames(): Promise<string[]>;
  /** Inbound id → protocol. */
  protocols(): Promise<Map<number, string>>;
}

/** A change made in memory; `replay` is set when it is applied again to what a read brought (only those emails). */
type Change = (cat: ClientCatalog, replay?: { emails?: ReadonlySet<string> }) => void;

interface Read {
  /** Journal position when the read started: later changes may be missing from what it reads. */
  from: number;
  /** The second of the last tick announced before the read started (its rows show it in lastOnline). */
  lastTickSecond: number;
}

/** A journaled change; ticks also say which second they wrote into lastOnline and which clients they moved. */
interface Entry {
  at: number;
  change: Change;
  tick?: { second: number; emails: string[] };
}

/** A value read on first use and kept until dropped; a read that a drop overtook is returned but not kept. */
class Kept<T> {
  private value: T | null = null;
  private version = 0;

  constructor(private read: () => Promise<T>) {}

  drop(): void {
    this.value = null;
    this.version++;
  }

  async get(): Promise<T> {
    if (this.value) return this.value;
    const version = this.version;
    const value = await this.read();
    if (version === this.version) this.value = value;
    return value;
  }
}

export interface CatalogPage {
  ids: number[];
  filtered: number;
  summary: ClientsSummary;
  groups: string[];
}

export class CatalogCache {
  private cat: ClientCatalog | null = null;
  /** Bumped by every change that needs a full read; a catalog of an older generation is not used. */
  private gen = 0;
  private builtGen = -1;
  private builtAt = 0;
  /** Emails changed since they were last read. */
  private marked = new Set<string>();
  /** While a full read runs: emails changed or re-read meanwhile (it may have read them before the change). */
  private touched: Set<string> | null = null;
  private rebuilding: Promise<void> | null = null;
  private patching: Promise<void> | null = null;
  private journal: Entry[] = [];
  private lastTickSecond = -1;
  private journalEnd = 0;
  private reads = new Set<Read>();
  private storedGroups: Kept<string[]>;
  private protocols: Kept<Map<number, string>>;

  constructor(private source: CatalogSource) {
    this.storedGroups = new Kept(() => source.storedGroupNames());
    this.protocols = new Kept(() => source.protocols());
  }

  clientsChanged(emails: readonly string[]): void {
    if (this.marked.size + emails.length > PATCH_MAX) return this.everythingChanged();
    this.storedGroups.drop(); // adding or updating a client stores the name of its group
    for (const e of emails) {
      this.marked.add(e);
      this.touched?.add(e);
    }
  }

  everythingChanged(): void {
    this.storedGroups.drop();
    this.gen++;
    this.marked.clear();
  }

  groupsChanged(): void {
    this.storedGroups.drop();
  }

  /** Inbound changes: protocols are read again; a deletion detaches its clients. */
  inboundsChanged(ids: number[] | 'all', action: string): void {
    this.protocols.drop();
    if (action !== 'del') return;
    if (ids === 'all') return this.everythingChanged();
    this.record((cat) => {
      for (const id of ids) cat.dropInbound(id);
    });
  }

  /** A traffic tick stored at `atMs` moved these counters. */
  countersMoved(moves: readonly CounterMove[], atMs: number): void {
    if (moves.length === 0) return;
    const second = Math.floor(atMs / 1000);
    this.record((cat, replay) => cat.applyMoves(moves, atMs, !!replay, replay?.emails), {
      second,
      emails: moves.map((m) => m.email),
    });
    this.lastTickSecond = second;
  }

  /**
   * Reads everything in the background unless the catalog is current or a read runs (errors wait for the next page).
   */
  warm(nowMs: number): Promise<void> {
    if (this.cat && this.builtGen === this.gen) return Promise.resolve();
    return this.rebuild(nowMs).catch(() => undefined);
  }

  async page(q: PageQuery, p: BucketParams): Promise<CatalogPage> {
    const [stored, protocols] = await Promise.all([this.storedGroups.get(), q.protocol ? this.protocols.get() : null]);
    const cat = await this.current(p.now);
    // Synchronous from here: the page, the summary and the groups see the same catalog.
    const { ids, filtered } = cat.page(q, p, (id) => protocols?.get(id));
    const groups = [...new Set([...stored, ...cat.carriedGroups()])].sort(compareGroupNames);
    return { ids, filtered, summary: cat.summary(p), groups };
  }

  /** The catalog with every mark read in. */
  private async current(nowMs: number): Promise<ClientCatalog> {
    // A generation that keeps changing (a stream of bulk changes) gets three full reads, then the latest one is used.
    for (let attempt = 0; attempt < 3 && (!this.cat || this.builtGen !== this.gen); attempt++)
      await this.rebuild(nowMs);
    if (nowMs - this.builtAt >= FULL_REBUILD_MS || nowMs < this.builtAt) this.rebuild(nowMs).catch(() => undefined);
    while (this.marked.size || this.patching) {
      if (this.patching) await this.patching;
      else await this.patchMarked();
    }
    return this.cat!;
  }

  /** Re-reads the marked emails (one patch at a time: a request never answers before a patch started earlier). */
  private async patchMarked(): Promise<void> {
    const emails = [...this.marked];
    this.marked.clear();
    for (const e of emails) this.touched?.add(e);
    const read = this.startRead();
    const base = this.cat;
    const run = (async () => {
      try {
        const rows = await this.source.catalogRows(emails);
        // A full read that landed meanwhile may be newer than these rows: they are read again instead.
        if (this.cat !== base) return this.clientsChanged(emails);
        this.cat!.patch(emails, rows);
        this.replay(read, this.cat!, { emails: new Set(emails) });
      } catch (err) {
        for (const e of emails) this.marked.add(e);
        throw err;
      } finally {
        this.endRead(read);
      }
    })();
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.patching = done;
    void done.then(() => {
      if (this.patching === done) this.patching = null;
    });
    await run;
  }

  /** One full read at a time; callers during one share it. */
  private rebuild(nowMs: number): Promise<void> {
    if (this.rebuilding) return this.rebuilding;
    const gen = this.gen;
    const touched = (this.touched = new Set());
    const read = this.startRead();
    this.rebuilding = this.readAll()
      .then((cat) => {
        this.replay(read, cat, {});
        this.cat = cat;
        this.builtGen = gen;
        this.builtAt = nowMs;
        this.marked = new Set([...touched, ...this.marked]);
      })
      .finally(() => {
        this.endRead(read);
        this.rebuilding = null;
        this.touched = null;
      });
    return this.rebuilding;
  }

  /** Every client, batch by batch, letting other work run between batches (SQLite reads hold the event loop). */
  private async readAll(): Promise<ClientCatalog> {
    const cat = new ClientCatalog();
    for (let from: number | null = 1; from !== null;) {
      const batch = await this.source.catalogBatch(from);
      for (const r of batch.rows) cat.put(r);
      from = batch.next;
      if (from !== null) await nextTurn();
    }
    return cat;
  }

  /** Applies a change now and keeps it for the reads in flight. */
  private record(change: Change, tick?: Entry['tick']): void {
    if (this.cat) change(this.cat);
    if (this.reads.size) this.journal.push({ at: this.journalEnd, change, tick });
    this.journalEnd++;
  }

  private startRead(): Read {
    const read = { from: this.journalEnd, lastTickSecond: this.lastTickSecond };
    this.reads.add(read);
    return read;
  }

  /**
   * Applies again what changed in memory since `read` started to what it read. A tick counts only where the rows do
   * not show it yet (lastOnline before its second); when two stores share a second, lastOnline cannot tell which of
   * them a row shows, so those clients are read again instead.
   */
  private replay(read: Read, cat: ClientCatalog, scope: { emails?: ReadonlySet<string> }): void {
    const entries = this.journal.filter((j) => j.at >= read.from);
    const perSecond = new Map<number, number>([[read.lastTickSecond, 1]]);
    for (const j of entries) if (j.tick) perSecond.set(j.tick.second, (perSecond.get(j.tick.second) ?? 0) + 1);
    for (const j of entries) {
      if (j.tick && perSecond.get(j.tick.second)! > 1) {
        this.clientsChanged(scope.emails ? j.tick.emails.filter((e) => scope.emails!.has(e)) : j.tick.emails);
      } else {
        j.change(cat, scope);
      }
    }
  }

  private endRead(read: Read): void {
    this.reads.delete(read);
    const oldest = Math.min(...[...this.reads].map((r) => r.from));
    this.journal = this.journal.filter((j) => j.at >= oldest);
  }
}
