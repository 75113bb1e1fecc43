// Client use cases: add, update, remove, attach/detach, bulk operations, traffic resets, status paging.
// Every mutation emits one `clients.changed` event naming the affected emails.
import type { Store } from '../ports/store.js';
import type { Clock } from '../shared/clock.js';
import { nowSeconds } from '../shared/clock.js';
import type { EventChannel } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import type { InboundRecord } from '../inbounds/model.js';
import { MULTI_CLIENT_PROTOCOLS } from '../inbounds/model.js';
import type { SettingsService } from '../settings/service.js';
import type {
  BucketParams,
  BulkSkip,
  ClientDetail,
  ClientPage,
  ClientRecord,
  ClientWrite,
  PageQuery,
} from './model.js';
import {
  applyProtocolRules,
  groupNameProblem,
  identifierProblem,
  ONLINE_WINDOW_SECONDS,
  randomSubId,
} from './rules.js';
import { BULK_MAX, type BulkCreateItem, type ClientInput } from './input.js';
import type { NewClient } from '../ports/clients-repo.js';
import { CatalogCache } from './catalog-cache.js';

const DAY_MS = 86_400_000;
const GB = 1024 ** 3;

/** The API form of a full client: the record plus attachments and counters. */
export type ClientView = Omit<ClientDetail, 'method'> & { method?: string };

export const clientView = (c: ClientDetail): ClientView => {
  const { method, ...rest } = c;
  return method ? { ...rest, method } : rest;
};

export class ClientsService {
  /** What the paged list searches, filters, sorts and summarises (kept in memory: catalog.ts, catalog-cache.ts). */
  private catalog: CatalogCache;

  constructor(
    private store: Store,
    private clock: Clock,
    private events: EventChannel,
    private settings: SettingsService,
  ) {
    this.catalog = new CatalogCache({
      catalogRows: (emails) => store.clients.catalogRows(emails),
      catalogBatch: (fromId) => store.clients.catalogBatch(fromId),
      storedGroupNames: () => store.groups.storedNames(),
      protocols: async () => new Map((await store.inbounds.list()).map((ib) => [ib.id, ib.protocol])),
    });
    events.on?.('clients.changed', (e) =>
      e.emails === 'all' ? this.catalog.everythingChanged() : this.catalog.clientsChanged(e.emails),
    );
    events.on?.('traffic.tick', (t) => this.catalog.countersMoved(t.clients, t.at));
    events.on?.('inbounds.changed', (e) => this.catalog.inboundsChanged(e.ids, e.action));
    events.on?.('groups.changed', () => this.catalog.groupsChanged());
  }

  /** Data replaced behind the catalog's back (a database import): read everything again. */
  reloadCatalog(): void {
    this.catalog.everythingChanged();
  }

  private changed(emails: string[] | 'all', action: string): void {
    if (emails !== 'all' && emails.length === 0) return;
    this.events.emit('clients.changed', { emails: emails === 'all' ? 'all' : [...new Set(emails)], action });
  }

  async bucketParams(): Promise<BucketParams> {
    const s = await this.settings.effective();
    const now = this.clock.now();
    return {
      now,
      onlineSince: nowSeconds(this.clock) - ONLINE_WINDOW_SECONDS,
      expireDiffMs: s.expireDiff * DAY_MS,
      trafficDiffBytes: s.trafficDiff * GB,
    };
  }

  private async mustGet(email: string): Promise<ClientRecord> {
    const c = await this.store.clients.byEmail(email);
    if (!c) throw new DomainError(`client ${email} not found`, 'not_found');
    return c;
  }

  /** Loads inbounds for attaching clients: every id must exist and take clients. */
  private async attachable(ids: number[]): Promise<InboundRecord[]> {
    const unique = [...new Set(ids)];
    const found = await this.store.inbounds.byIds(unique);
    const byId = new Map(found.map((i) => [i.id, i]));
    for (const id of unique) {
      const ib = byId.get(id);
      if (!ib) throw new DomainError(`inbound ${id} not found`, 'not_found');
      if (!MULTI_CLIENT_PROTOCOLS.includes(ib.protocol))
        throw new DomainError(`inbound ${id} (${ib.protocol}) does not take clients`);
    }
    return unique.map((id) => byId.get(id)!);
  }

  /**
   * Builds the stored row from input: replaces every field (defaults for omitted ones); secrets fall back to `keep`.
   */
  private buildRow(input: ClientInput, inbounds: InboundRecord[], now: number, keep?: ClientRecord): ClientWrite {
    const email = input.email;
    const emailProblem = identifierProblem('email', email, true);
    if (emailProblem) throw new DomainError(emailProblem);
    const subId = input.subId ?? keep?.subId ?? '';
    const subProblem = identifierProblem('subId', subId, false);
    if (subProblem) throw new DomainError(subProblem);
    const group = (input.group ?? '').trim();
    const groupProblem = groupNameProblem('group', group, true);
    if (groupProblem) throw new DomainError(groupProblem);
    const flow = input.flow === 'none' ? '' : (input.flow ?? '');
    const row: ClientWrite = {
      email,
      subId: subId || randomSubId(),
      uuid: input.id ?? input.uuid ?? keep?.uuid ?? '',
      password: input.password ?? keep?.password ?? '',
      auth: input.auth ?? keep?.auth ?? '',
      flow,
      security: input.security ?? keep?.security ?? '',
      method: '',
      totalGB: input.totalGB ?? 0,
      expiryTime: input.expiryTime ?? 0,
      enable: input.enable ?? true,
      limitIp: input.limitIp ?? 0,
      tgId: input.tgId ?? 0,
      comment: input.comment ?? '',
      group,
      reverse: input.reverse && input.reverse.tag ? { tag: input.reverse.tag } : null,
      reset: input.reset ?? 0,
      createdAt: keep?.createdAt ?? now,
      updatedAt: now,
    };
    return applyProtocolRules(row, inbounds);
  }

  // ---- reads ---------------------------------------------------------------------------------------------------

  async list(): Promise<ClientView[]> {
    return (await this.store.clients.listDetails()).map(clientView);
  }

  async get(email: string): Promise<{ client: ClientView; inboundIds: number[] }> {
    const full = await this.store.clients.detail(email);
    if (!full) throw new DomainError(`client ${email} not found`, 'not_found');
    return { client: clientView(full), inboundIds: full.inboundIds };
  }

  /** Starts reading the catalog in the background (at start), so the first page request finds it ready. */
  async warmCatalog(): Promise<void> {
    await this.catalog.warm(this.clock.now());
  }

  /** One page (from the catalog; the page's rows read fresh), with the summary over all clients and the group names. */
  async page(q: PageQuery): Promise<ClientPage> {
    const p = await this.bucketParams();
    const { ids, filtered, summary, groups } = await this.catalog.page(q, p);
    const items = await this.store.clients.listRows(ids);
    return { items, total: summary.total, filtered, page: q.page, pageSize: q.pageSize, summary, groups };
  }

  /** Emails whose counters moved within the online window (client_traffics.lastOnline, kept by the traffic tick). */
  onlines(): Promise<string[]> {
    return this.store.clients.onlines(nowSeconds(this.clock) - ONLINE_WINDOW_SECONDS);
  }

  lastOnline(): Promise<Record<string, number>> {
    return this.store.clients.lastOnline();
  }

  async traffic(email: string) {
    const t = await this.store.clients.traffic(email);
    if (!t) throw new DomainError(`client ${email} not found`, 'not_found');
    return t;
  }

  /** Recorded source IPs as "IP (YYYY-MM-DD HH:MM:SS UTC)", oldest first. */
  async ips(email: string): Promise<string[]> {
    await this.mustGet(email);
    const rows = await this.store.clients.ips(email);
    return rows.map((r) => `${r.ip} (${new Date(r.lastSeen * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC)`);
  }

  async clearIps(email: string): Promise<number> {
    await this.mustGet(email);
    return this.store.clients.clearIps(email);
  }

  // ---- single-client mutations -------------------------------------------------------------------------------------

  async add(input: { client: ClientInput; inboundIds: number[] }): Promise<ClientView> {
    if (input.inboundIds.length === 0) throw new DomainError('inboundIds: at least one inbound id is required');
    const inbounds = await this.attachable(input.inboundIds);
    const now = this.clock.now();
    const row = this.buildRow(input.client, inbounds, now);
    const created = await this.store.clients.insert(
      row,
      inbounds.map((i) => i.id),
    );
    if (!created) throw new DomainError(`email already in use: ${row.email}`, 'conflict');
    this.changed([row.email], 'add');
    return clientView({
      ...created,
      inboundIds: inbounds.map((i) => i.id).sort((a, b) => a - b),
      traffic: { up: 0, down: 0, enable: true, lastOnline: 0 },
    });
  }

  /** Replaces the record (not a patch); omitted secrets keep their stored values. The email may change. */
  async update(email: string, input: ClientInput): Promise<ClientView> {
    const cur = await this.mustGet(email);
    const inbounds = await this.store.inbounds.ofClient(cur.id);
    const row = this.buildRow({ ...input, email: input.email || email }, inbounds, this.clock.now(), cur);
    const res = await this.store.clients.replace(cur.id, cur.email, row);
    if (res.outcome !== 'ok') {
      throw res.outcome === 'missing'
        ? new DomainError(`client ${email} not found`, 'not_found')
        : new DomainError(`email already in use: ${row.email}`, 'conflict');
    }
    this.changed([cur.email, row.email], 'update');
    return clientView({ ...row, id: cur.id, inboundIds: inbounds.map((i) => i.id), traffic: res.traffic });
  }

  async remove(email: string, keepTraffic: boolean): Promise<void> {
    const gone = await this.store.clients.remove([email], keepTraffic, this.clock.now());
    if (gone.length === 0) throw new DomainError(`client ${email} not found`, 'not_found');
    this.changed(gone, 'del');
  }

  async attach(email: string, inboundIds: number[]): Promise<{ inboundIds: number[] }> {
    if (inboundIds.length === 0) throw new DomainError('inboundIds: at least one inbound id is required');
    const cur = await this.mustGet(email);
    const targets = await this.attachable(inboundIds);
    const current = await this.store.inbounds.ofClient(cur.id);
    const filled = applyProtocolRules({ ...cur, flow: cur.flow, reverse: cur.reverse }, [...current, ...targets]);
    const keepFlowReverse = { ...filled, flow: filled.flow || cur.flow, reverse: filled.reverse ?? cur.reverse };
    if (
      filled.uuid !== cur.uuid ||
      filled.password !== cur.password ||
      filled.auth !== cur.auth ||
      filled.method !== cur.method ||
      filled.security !== cur.security
    ) {
      const { id: _id, ...row } = { ...keepFlowReverse, updatedAt: this.clock.now() };
      await this.store.clients.replace(cur.id, cur.email, row);
    }
    await this.store.clients.attach(
      cur.id,
      targets.map((t) => t.id),
    );
    this.changed([cur.email], 'attach');
    return { inboundIds: await this.store.clients.inboundIdsOf(cur.id) };
  }

  async detach(email: string, inboundIds: number[]): Promise<{ inboundIds: number[] }> {
    if (inboundIds.length === 0) throw new DomainError('inboundIds: at least one inbound id is required');
    const cur = await this.mustGet(email);
    const n = await this.store.clients.detach(cur.id, [...new Set(inboundIds)]);
    if (n > 0) this.changed([cur.email], 'detach');
    return { inboundIds: await this.store.clients.inboundIdsOf(cur.id) };
  }

  // ---- traffic ---------------------------------------------------------------------------------------------------

  async resetTraffic(email: string): Promise<void> {
    await this.mustGet(email);
    await this.store.clients.resetTraffic([email]);
    this.changed([email], 'resetTraffic');
  }

  async bulkResetTraffic(emails: string[]): Promise<{ affected: number }> {
    const res = await this.store.clients.resetTraffic(emails);
    this.changed(res.emails, 'bulkResetTraffic');
    return { affected: res.emails.length };
  }

  /** Zeroes every client's counters and re-enables depleted clients; the event only when a counter moved. */
  async resetAllTraffics(): Promise<{ moved: boolean }> {
    const res = await this.store.clients.resetTraffic('all');
    if (res.moved) this.changed('all', 'resetAllTraffics');
    return { moved: res.moved };
  }

  async updateTraffic(email: string, upload: number, download: number): Promise<void> {
    if (!(await this.store.clients.setTraffic(email, upload, download)))
      throw new DomainError(`client ${email} not found`, 'not_found');
    this.changed([email], 'updateTraffic');
  }

  /** Deletes exactly the depleted clients (quota-only depletion of auto-renewing clients excepted). */
  async delDepleted(): Promise<{ deleted: number }> {
    const emails = await this.store.clients.deletableDepleted(await this.bucketParams());
    const gone = await this.store.clients.remove(emails, false, this.clock.now());
    this.changed(gone, 'delDepleted');
    return { deleted: gone.length };
  }

  // ---- bulk ------------------------------------------------------------------------------------------------------

  private static capped<T>(items: T[], what: string): T[] {
    if (items.length > BULK_MAX) throw new DomainError(`${what}: at most ${BULK_MAX} items per request`);
    return items;
  }

  async bulkAdjust(
    emails: string[],
    addDays: number,
    addBytes: number,
  ): Promise<{ adjusted: number; skipped: BulkSkip[] }> {
    ClientsService.capped(emails, 'emails');
    if (addDays === 0 && addBytes === 0) throw new DomainError('nothing to adjust: addDays and addBytes are both 0');
    const list = [...new Set(emails)];
    const records = new Map((await this.store.clients.byEmails(list)).map((r) => [r.email, r]));
    const skipped: BulkSkip[] = [];
    const plan: { id: number; email: string; expiryTime: number; totalGB: number }[] = [];
    const addMs = addDays * DAY_MS;
    for (const email of list) {
      const r = records.get(email);
      if (!r) {
        skipped.push({ email, reason: 'client not found' });
        continue;
      }
      let expiryTime = r.expiryTime;
      let totalGB = r.totalGB;
      let applied = false;
      let reason = '';
      if (addDays !== 0) {
        if (r.expiryTime === 0) reason = 'unlimited expiry';
        else if (r.expiryTime > 0) {
          const next = r.expiryTime + addMs;
          if (next <= 0) reason = 'reduction exceeds remaining time';
          else {
            expiryTime = next;
            applied = true;
          }
        } else {
          // Delayed start: the stored value is minus the period; adding days makes it more negative.
          const next = r.expiryTime - addMs;
          if (next >= 0) reason = 'reduction exceeds delay window';
          else {
            expiryTime = next;
            applied = true;
          }
        }
      }
      if (addBytes !== 0) {
        if (r.totalGB === 0) reason ||= 'unlimited traffic';
        else {
          const next = r.totalGB + addBytes;
          if (next <= 0) reason ||= 'reduction exceeds remaining quota';
          else {
            totalGB = next;
            applied = true;
          }
        }
      }
      if (reason) skipped.push({ email, reason });
      if (applied) plan.push({ id: r.id, email, expiryTime, totalGB });
    }
    await this.store.clients.setLimits(plan, this.clock.now());
    this.changed(
      plan.map((p) => p.email),
      'bulkAdjust',
    );
    return { adjusted: plan.length, skipped };
  }

  async bulkDel(emails: string[], keepTraffic: boolean): Promise<{ deleted: number; skipped: BulkSkip[] }> {
    ClientsService.capped(emails, 'emails');
    const list = [...new Set(emails)];
    const gone = new Set(await this.store.clients.remove(list, keepTraffic, this.clock.now()));
    this.changed([...gone], 'bulkDel');
    return {
      deleted: gone.size,
      skipped: list.filter((e) => !gone.has(e)).map((email) => ({ email, reason: 'client not found' })),
    };
  }

  /**
   * Validates every item on its own (a bad item is skipped with its reason), then inserts the rest in one transaction.
   */
  /** Items come parsed one by one (domain/clients/input.ts bulkCreateBody); a bad item is skipped with its reason. */
  async bulkCreate(items: BulkCreateItem[]): Promise<{ created: number; skipped: BulkSkip[] }> {
    ClientsService.capped(items, 'body');
    const skipped: BulkSkip[] = [];
    const parsed: { client: ClientInput; inboundIds: number[] }[] = [];
    for (const item of items) {
      if (!item.ok) {
        skipped.push({ email: item.email, reason: item.reason });
        continue;
      }
      if (item.inboundIds.length === 0) {
        skipped.push({ email: item.client.email, reason: 'inboundIds: at least one inbound id is required' });
        continue;
      }
      parsed.push(item);
    }
    const allIds = [...new Set(parsed.flatMap((p) => p.inboundIds))];
    const inbounds = new Map((await this.store.inbounds.byIds(allIds)).map((i) => [i.id, i]));
    const now = this.clock.now();
    const seen = new Set<string>();
    const ready: NewClient[] = [];
    for (const p of parsed) {
      const email = p.client.email;
      try {
        const targets: InboundRecord[] = [];
        for (const id of new Set(p.inboundIds)) {
          const ib = inbounds.get(id);
          if (!ib) throw new DomainError(`inbound ${id} not found`);
          if (!MULTI_CLIENT_PROTOCOLS.includes(ib.protocol))
            throw new DomainError(`inbound ${id} (${ib.protocol}) does not take clients`);
          targets.push(ib);
        }
        const row = this.buildRow(p.client, targets, now);
        if (seen.has(row.email)) throw new DomainError('duplicate email in this request');
        seen.add(row.email);
        ready.push({ row, inboundIds: targets.map((t) => t.id) });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        skipped.push({ email, reason: err.message });
      }
    }
    const res = await this.store.clients.insertMany(ready);
    for (const email of res.taken) skipped.push({ email, reason: 'email already in use' });
    this.changed(res.created, 'bulkCreate');
    return { created: res.created.length, skipped };
  }

  async bulkAssignGroup(emails: string[], group: string): Promise<{ affected: number }> {
    ClientsService.capped(emails, 'emails');
    const name = group.trim();
    const problem = groupNameProblem('group', name, true);
    if (problem) throw new DomainError(problem);
    const now = this.clock.now();
    if (name) await this.store.groups.ensure(name, now);
    const changed = await this.store.clients.setGroup(emails, name, now);
    this.changed(changed, 'bulkAssignGroup');
    return { affected: changed.length };
  }
}
