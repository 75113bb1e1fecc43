// The `settings.clients` JSON text of recently read inbounds (inbounds/get; docs/decisions/0002). That array holds
// only client rows, which a traffic tick does not change, so a repeated read of a large inbound builds just
// `clientStats`. A change of a few clients marks their emails on every kept text, and the
// next read patches just those entries (clients-text-patch.ts) from a small read of their rows. Dropped by every
// event that can change more: a change of many clients or of all, any inbound change, group changes, a database
// import, and a traffic tick when the inbound has a client whose delayed expiry (negative expiryTime) a first byte of
// traffic starts. A full read that a change overtook is not kept. Like the paged list's catalog, writes from another
// process on the same database are not seen until a drop.
import { patchClientsText, type FreshEntry } from './clients-text-patch.js';

/** Changed emails a kept text takes before it is dropped instead (a patch looks each one up in the 5 MB text). */
export const MAX_PATCHED_EMAILS = 16;

interface Entry {
  /** The projection the text was built for (protocol and flow eligibility). */
  shape: string;
  text: string;
  /** The highest client id the text was built or patched with: a fresh entry above it is appended. */
  lastId: number;
  /** Some client of the inbound has a delayed expiry: a traffic tick can start it. */
  delayedStart: boolean;
  /** Emails changed since the text was built, each with the sequence number of its last change. */
  dirty: Map<string, number>;
  /** The patch in progress: patches of one text run one at a time, so none undoes a newer one. */
  patching: Promise<unknown> | null;
}

/** Reads the current entries of the given emails attached to the inbound. */
export type ReadEntries = (emails: string[]) => Promise<(FreshEntry & { delayedStart: boolean })[]>;

export class ClientsTextCache {
  private entries = new Map<number, Entry>();
  private chars = 0;
  private generation = 0;
  private changeSeq = 0;

  /** @param maxChars the texts kept, in characters (least recently used dropped first). */
  constructor(private maxChars: number) {}

  /** Taken before a full read; `put` keeps the read's text only if nothing changed since. */
  get mark(): number {
    return this.generation;
  }

  /**
   * The kept text of the inbound for this projection, with the changed clients' entries patched in (`readEntries`
   * reads them); null when there is none or it cannot be patched (then build it and `put` it).
   */
  async get(inboundId: number, shape: string, readEntries: ReadEntries): Promise<string | null> {
    let e = this.entries.get(inboundId);
    while (e?.patching) {
      await e.patching.catch(() => {});
      e = this.entries.get(inboundId);
    }
    if (!e || e.shape !== shape) return null;
    this.entries.delete(inboundId); // re-inserted: the Map's order is the order of use
    this.entries.set(inboundId, e);
    if (e.dirty.size === 0) return e.text;
    const changes = new Map(e.dirty);
    const patch = (async () => {
      const fresh = await readEntries([...changes.keys()]);
      const patched = patchClientsText(e.text, e.lastId, changes.keys(), fresh);
      if (this.entries.get(inboundId) !== e) return patched?.text ?? null; // dropped meanwhile: serve, do not keep
      if (!patched) {
        this.remove(inboundId);
        return null;
      }
      this.chars += patched.text.length - e.text.length;
      e.text = patched.text;
      e.lastId = patched.lastId;
      e.delayedStart ||= fresh.some((f) => f.delayedStart);
      // an email changed again while its row was read stays marked
      for (const [email, seq] of changes) if (e.dirty.get(email) === seq) e.dirty.delete(email);
      this.evict();
      return patched.text;
    })();
    e.patching = patch;
    try {
      return await patch;
    } finally {
      if (e.patching === patch) e.patching = null;
    }
  }

  put(inboundId: number, shape: string, text: string, lastId: number, delayedStart: boolean, mark: number): void {
    if (mark !== this.generation || text.length > this.maxChars) return;
    this.remove(inboundId);
    this.entries.set(inboundId, { shape, text, lastId, delayedStart, dirty: new Map(), patching: null });
    this.chars += text.length;
    this.evict();
  }

  /** Clients changed: their entries are patched on the next read, or the texts dropped when they are too many. */
  clientsChanged(emails: string[] | 'all'): void {
    if (emails === 'all' || emails.length > MAX_PATCHED_EMAILS) return this.dropAll();
    this.generation++; // a full read in flight may hold the rows from before the change
    const seq = ++this.changeSeq;
    for (const [id, e] of this.entries) {
      for (const email of emails) e.dirty.set(email, seq);
      if (e.dirty.size > MAX_PATCHED_EMAILS) this.remove(id);
    }
  }

  dropAll(): void {
    this.generation++;
    this.entries.clear();
    this.chars = 0;
  }

  /** A traffic tick moved counters: texts that show a delayed expiry may now be stale. */
  trafficMoved(): void {
    this.generation++; // a read in flight may hold the expiry from before the tick
    for (const [id, e] of this.entries) if (e.delayedStart) this.remove(id);
  }

  private evict(): void {
    for (const [id] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.remove(id);
    }
  }

  private remove(inboundId: number): void {
    const e = this.entries.get(inboundId);
    if (!e) return;
    this.entries.delete(inboundId);
    this.chars -= e.text.length;
  }
}
