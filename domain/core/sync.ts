// Live changes to the running core (DESIGN.md principle 3). Subscribed to `clients.changed` and
// `inbounds.changed`, it re-reads the affected rows and applies the difference through HandlerService: users
// added/removed per inbound (account type from the inbound's protocol), inbounds added/removed. Idempotent,
// serialised, and coalescing: a burst of events becomes one pass (and at most one full reload, used only when
// the API cannot make the change or a call fails).
import type { Json, Protocol } from '../inbounds/model.js';
import type { CoreControl, CoreFlavour, CoreUser } from '../ports/core.js';
import type { CoreViewRepo } from '../ports/core-view.js';
import { entryKey, type BuildResult, type BuiltInbound } from './builder.js';

interface AppliedInbound {
  id: number;
  tag: string;
  protocol: Protocol;
  shapeKey: string;
  json: Json;
  liveUsers: boolean;
  users: Map<string, string>;
  source: BuiltInbound['source'];
}

export interface SyncDeps {
  view: CoreViewRepo;
  core: CoreControl;
  /** A full build from the database. */
  build(): Promise<BuildResult>;
  /** Full reload (rebuild, restart, reset); used when the API cannot apply a change. */
  reload(reason: string): Promise<void>;
  /** Runs `fn` after every operation queued before it (the core service's serial queue). */
  enqueue<T>(fn: () => Promise<T>): Promise<T>;
  /** Called after live changes, to keep the config file in step. */
  changed(build?: BuildResult): void;
  log?(msg: string, fields?: Record<string, unknown>): void;
}

/** A user for AddUser from its config entry (what the builder emitted), the account type from `protocol`. */
export function userFromEntry(protocol: Protocol, entry: Json, source: { settings: Json }): CoreUser {
  const s = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const user: CoreUser = { email: String(entry.email) };
  if (protocol === 'vless' || protocol === 'vmess') user.id = s(entry.id);
  if (protocol === 'vless' || protocol === 'trojan') user.flow = s(entry.flow);
  if (protocol === 'vmess') user.security = s(entry.security) ?? 'auto';
  if (protocol === 'trojan' || protocol === 'shadowsocks') user.password = s(entry.password);
  if (protocol === 'shadowsocks') user.method = s(entry.method) ?? s(source.settings.method);
  if (protocol === 'hysteria' || protocol === 'hysteria2') user.auth = s(entry.auth);
  return user;
}

export class CoreSync {
  private applied = new Map<string, AppliedInbound>();
  private idToTag = new Map<number, string>();
  private emailTags = new Map<string, Set<string>>();
  private waiting = new Set<number>();
  private pendingEmails = new Set<string>();
  private pendingFull = false;
  private scheduled: Promise<void> | null = null;
  /** The latest drain, scheduled or running (the queue is serial, so it ends after every earlier one). */
  private latest: Promise<void> = Promise.resolve();
  private flavour: CoreFlavour = 'xray';
  /** Counts of what the sync did, for tests and diagnostics. */
  readonly stats = { passes: 0, addUser: 0, removeUser: 0, addInbound: 0, removeInbound: 0, reloads: 0 };

  constructor(private deps: SyncDeps) {}

  /** After a full (re)start on `build`: what runs in the core now. */
  reset(build: BuildResult, flavour: CoreFlavour): void {
    this.flavour = flavour === 'unknown' ? 'xray' : flavour;
    this.applied.clear();
    this.idToTag.clear();
    this.emailTags.clear();
    this.waiting = new Set(build.waitingForClients);
    for (const b of build.inbounds) this.setApplied(b);
  }

  /** The core stopped: nothing is applied. */
  clear(): void {
    this.applied.clear();
    this.idToTag.clear();
    this.emailTags.clear();
  }

  get active(): boolean {
    return this.applied.size > 0 || this.idToTag.size > 0 || this.running();
  }

  private running(): boolean {
    return this.deps.core.status().state === 'running';
  }

  clientsChanged(emails: string[] | 'all'): Promise<void> {
    if (emails === 'all') this.pendingFull = true;
    else for (const e of emails) this.pendingEmails.add(e);
    return this.schedule();
  }

  inboundsChanged(_ids: number[] | 'all'): Promise<void> {
    this.pendingFull = true;
    return this.schedule();
  }

  /** Resolves when everything pending so far is applied. */
  flush(): Promise<void> {
    return this.latest;
  }

  private schedule(): Promise<void> {
    if (this.scheduled) return this.scheduled;
    const p = this.deps.enqueue(async () => {
      this.scheduled = null;
      await this.drain();
    });
    this.scheduled = p.catch((err) => this.deps.log?.('core sync failed', { error: String(err) }));
    this.latest = this.scheduled;
    return this.scheduled;
  }

  private async drain(): Promise<void> {
    const full = this.pendingFull;
    const emails = [...this.pendingEmails];
    this.pendingFull = false;
    this.pendingEmails.clear();
    if (!full && emails.length === 0) return;
    if (!this.running()) return; // the next start builds everything from the database
    this.stats.passes++;
    try {
      if (full) await this.reconcile(await this.deps.build());
      else if (!(await this.syncClients(emails))) await this.reconcile(await this.deps.build());
    } catch (err) {
      this.deps.log?.('live core change failed; reloading the core', {
        error: err instanceof Error ? err.message : String(err),
      });
      this.stats.reloads++;
      await this.deps.reload(`live change failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private setApplied(b: BuiltInbound): void {
    const prev = this.applied.get(b.tag);
    if (prev) this.dropApplied(prev.tag);
    this.applied.set(b.tag, {
      id: b.id,
      tag: b.tag,
      protocol: b.protocol,
      shapeKey: b.shapeKey,
      json: b.json,
      liveUsers: b.liveUsers,
      users: new Map(b.users),
      source: b.source,
    });
    this.idToTag.set(b.id, b.tag);
    for (const email of b.users.keys()) this.linkEmail(email, b.tag);
  }

  private dropApplied(tag: string): void {
    const a = this.applied.get(tag);
    if (!a) return;
    for (const email of a.users.keys()) this.unlinkEmail(email, tag);
    this.applied.delete(tag);
    if (this.idToTag.get(a.id) === tag) this.idToTag.delete(a.id);
  }

  private linkEmail(email: string, tag: string): void {
    let set = this.emailTags.get(email);
    if (!set) this.emailTags.set(email, (set = new Set()));
    set.add(tag);
  }

  private unlinkEmail(email: string, tag: string): void {
    const set = this.emailTags.get(email);
    if (!set) return;
    set.delete(tag);
    if (set.size === 0) this.emailTags.delete(email);
  }

  private async addUser(a: AppliedInbound, email: string, key: string): Promise<void> {
    await this.deps.core.addUser(a.tag, a.protocol, userFromEntry(a.protocol, JSON.parse(key) as Json, a.source));
    a.users.set(email, key);
    this.linkEmail(email, a.tag);
    this.stats.addUser++;
  }

  private async removeUser(a: AppliedInbound, email: string): Promise<void> {
    await this.deps.core.removeUser(a.tag, email);
    a.users.delete(email);
    this.unlinkEmail(email, a.tag);
    this.stats.removeUser++;
  }

  /**
   * Targeted pass for the given emails: one read, then only the AddUser/RemoveUser calls needed. Returns false
   * when an affected inbound cannot change users live (the caller reconciles the whole config instead).
   */
  private async syncClients(emails: string[]): Promise<boolean> {
    const rows = await this.deps.view.clientsByEmails(emails);
    const desired = new Map<string, Map<string, string>>(); // email → tag → entry key
    for (const { client, inboundIds } of rows) {
      if (inboundIds.some((id) => this.waiting.has(id))) return false; // an inbound that was waiting for a client
      const want = new Map<string, string>();
      if (client.enable) {
        for (const id of inboundIds) {
          const tag = this.idToTag.get(id);
          const a = tag ? this.applied.get(tag) : undefined;
          if (!a) continue; // not running in the core (disabled, on a node, or left out for this flavour)
          const key = entryKey(a.protocol, client, a.source, this.flavour);
          if (key) want.set(a.tag, key);
        }
      }
      desired.set(client.email, want);
    }
    // Which inbounds are touched, and can they all change users live?
    for (const email of emails) {
      const want = desired.get(email) ?? new Map<string, string>();
      const have = this.emailTags.get(email) ?? new Set<string>();
      for (const tag of new Set([...want.keys(), ...have])) {
        const a = this.applied.get(tag);
        if (a && !a.liveUsers && a.users.get(email) !== want.get(tag)) return false;
      }
    }
    let changed = false;
    for (const email of emails) {
      const want = desired.get(email) ?? new Map<string, string>();
      for (const tag of [...(this.emailTags.get(email) ?? [])]) {
        const a = this.applied.get(tag);
        if (a && !want.has(tag)) {
          await this.removeUser(a, email);
          changed = true;
        }
      }
      for (const [tag, key] of want) {
        const a = this.applied.get(tag)!;
        const cur = a.users.get(email);
        if (cur === key) continue;
        if (cur !== undefined) await this.removeUser(a, email);
        await this.addUser(a, email, key);
        changed = true;
      }
    }
    if (changed) this.deps.changed();
    return true;
  }

  /** Brings the core from what is applied to `build`, inbound by inbound and user by user. */
  private async reconcile(build: BuildResult): Promise<void> {
    const desired = new Map(build.inbounds.map((b) => [b.tag, b]));
    let changed = false;
    for (const tag of [...this.applied.keys()]) {
      if (!desired.has(tag)) {
        await this.deps.core.removeInbound(tag);
        this.dropApplied(tag);
        this.stats.removeInbound++;
        changed = true;
      }
    }
    for (const b of build.inbounds) {
      const a = this.applied.get(b.tag);
      if (a && a.shapeKey === b.shapeKey && (a.liveUsers || sameUsers(a.users, b.users))) {
        for (const email of [...a.users.keys()]) {
          if (!b.users.has(email)) {
            await this.removeUser(a, email);
            changed = true;
          }
        }
        for (const [email, key] of b.users) {
          const cur = a.users.get(email);
          if (cur === key) continue;
          if (cur !== undefined) await this.removeUser(a, email);
          await this.addUser(a, email, key);
          changed = true;
        }
        a.source = b.source;
        continue;
      }
      if (a) {
        await this.deps.core.removeInbound(b.tag);
        this.dropApplied(b.tag);
        this.stats.removeInbound++;
      }
      await this.deps.core.addInbound(b.json);
      this.setApplied(b);
      this.stats.addInbound++;
      changed = true;
    }
    this.waiting = new Set(build.waitingForClients);
    // Fresh ids for renamed tags.
    for (const b of build.inbounds) this.idToTag.set(b.id, b.tag);
    if (changed) this.deps.changed(build);
  }
}

function sameUsers(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
