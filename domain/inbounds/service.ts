// Inbound use cases: list (with clients projected from client rows), add/update with port checks and server-made
// tags, delete, enable, traffic resets, import, fallbacks. Every mutation emits one `inbounds.changed` event.
import type { Store } from '../ports/store.js';
import type { PortProbe } from '../ports/port-probe.js';
import type { AttachedClientRow } from '../ports/inbounds-repo.js';
import type { Clock } from '../shared/clock.js';
import type { EventChannel } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import type { ClientWrite } from '../clients/model.js';
import { applyProtocolRules, flowFor, randomSubId, ss2022KeyBytes, validSs2022Key } from '../clients/rules.js';
import { randomAlnum } from '../shared/random.js';
import {
  MULTI_CLIENT_PROTOCOLS,
  NODE_CAPABLE_PROTOCOLS,
  type ClientStat,
  type FallbackRule,
  type InboundOption,
  type InboundRecord,
  type InboundView,
  type InboundWrite,
  type Json,
  type ProjectedClient,
} from './model.js';
import {
  anyTransport,
  baseTag,
  cleanSniffing,
  cleanStream,
  fallbackMasterCapable,
  flowEligible,
  isSocketListen,
  listenOverlaps,
  sharedTransports,
  ssMethodOf,
  stripClients,
  tlsFlowCapable,
  transportName,
  transportsOf,
  type Transports,
} from './rules.js';
import type { FallbacksBody, InboundImport, InboundInput } from './input.js';
import { ClientsTextCache } from './clients-text-cache.js';

function projectClient(row: AttachedClientRow, ib: InboundRecord): ProjectedClient {
  const c = row.client;
  const out: ProjectedClient = { email: c.email, enable: c.enable };
  switch (ib.protocol) {
    case 'vless': {
      out.id = c.uuid;
      out.flow = flowFor(c, ib);
      if (c.reverse) out.reverse = c.reverse;
      break;
    }
    case 'vmess':
      out.id = c.uuid;
      out.security = c.security || 'auto';
      break;
    case 'trojan':
      out.password = c.password;
      out.flow = flowFor(c, ib);
      break;
    case 'shadowsocks':
      out.password = c.password;
      if (c.method) out.method = c.method;
      break;
    case 'hysteria':
    case 'hysteria2':
      out.auth = c.auth;
      break;
    default:
      break;
  }
  Object.assign(out, {
    limitIp: c.limitIp,
    totalGB: c.totalGB,
    expiryTime: c.expiryTime,
    tgId: c.tgId,
    subId: c.subId,
    comment: c.comment,
    reset: c.reset,
    group: c.group,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  });
  return out;
}

function statOf(row: AttachedClientRow, slim: boolean): ClientStat {
  const c = row.client;
  const s: ClientStat = {
    id: c.id,
    inboundId: row.inboundId,
    email: c.email,
    enable: row.trafficEnable,
    up: row.up,
    down: row.down,
    total: c.totalGB,
    expiryTime: c.expiryTime,
    reset: c.reset,
    lastOnline: row.lastOnline,
  };
  if (!slim) Object.assign(s, { uuid: c.uuid, subId: c.subId });
  return s;
}

/**
 * `text` with the one occurrence of each token replaced by its value (null if a token is not there exactly once).
 * Every token is looked for in `text` alone, never in a value already spliced in (those are megabytes long).
 */
function splice(text: string, values: [token: string, value: string][]): string | null {
  const found: [at: number, token: string, value: string][] = [];
  for (const [token, value] of values) {
    const at = text.indexOf(token);
    if (at < 0 || text.indexOf(token, at + token.length) >= 0) return null;
    found.push([at, token, value]);
  }
  found.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [at, token, value] of found) {
    out += text.slice(from, at) + value;
    from = at + token.length;
  }
  return out + text.slice(from);
}

/** The `settings.clients` texts getJson keeps (characters: about three inbounds of 20,000 clients). */
const CLIENTS_TEXT_MAX_CHARS = 16_000_000;

export class InboundsService {
  private clientsText = new ClientsTextCache(CLIENTS_TEXT_MAX_CHARS);

  constructor(
    private store: Store,
    private clock: Clock,
    private events: EventChannel,
    private probe: PortProbe,
    /** The inbound owner recorded on new rows (the single admin). */
    private userId = 1,
  ) {
    const dropAll = () => this.clientsText.dropAll();
    events.on?.('clients.changed', (e) => this.clientsText.clientsChanged(e.emails));
    events.on?.('inbounds.changed', dropAll);
    events.on?.('groups.changed', dropAll);
    events.on?.('traffic.tick', (t) => {
      if (t.clients.length) this.clientsText.trafficMoved();
    });
  }

  /** Data replaced behind the events' back (a database import): nothing kept is used again. */
  dropCachedText(): void {
    this.clientsText.dropAll();
  }

  private changed(ids: number[] | 'all', action: string): void {
    this.events.emit('inbounds.changed', { ids, action });
  }

  private async mustGet(id: number): Promise<InboundRecord> {
    const ib = await this.store.inbounds.byId(id);
    if (!ib) throw new DomainError(`inbound ${id} not found`, 'not_found');
    return ib;
  }

  // ---- reads -----------------------------------------------------------------------------------------------------

  private view(ib: InboundRecord, rows: AttachedClientRow[], slim: boolean): InboundView {
    const settings: Json = { ...stripClients(ib.settings) };
    if (MULTI_CLIENT_PROTOCOLS.includes(ib.protocol)) {
      settings.clients = rows.map((r) =>
        slim ? { email: r.client.email, enable: r.client.enable, comment: r.client.comment } : projectClient(r, ib),
      );
    }
    return {
      ...ib,
      settings,
      streamSettings: cleanStream(ib.streamSettings),
      sniffing: cleanSniffing(ib.sniffing),
      clientStats: rows.map((r) => statOf(r, slim)),
    };
  }

  private async views(inbounds: InboundRecord[], ids: number[] | 'all', slim: boolean): Promise<InboundView[]> {
    const rows = await this.store.inbounds.attachedClients(ids);
    const byInbound = new Map<number, AttachedClientRow[]>();
    for (const r of rows) {
      let list = byInbound.get(r.inboundId);
      if (!list) byInbound.set(r.inboundId, (list = []));
      list.push(r);
    }
    return inbounds.map((ib) => this.view(ib, byInbound.get(ib.id) ?? [], slim));
  }

  async list(slim = false): Promise<InboundView[]> {
    return this.views(await this.store.inbounds.list(), 'all', slim);
  }

  async get(id: number): Promise<InboundView> {
    const ib = await this.mustGet(id);
    return (await this.views([ib], [id], false))[0]!;
  }

  /**
   * `get` as JSON text: the inbound's fields stringified here, its `settings.clients` and `clientStats` arrays
   * spliced in as text built by the database (an inbound with 20,000 clients is a 10 MB body; building and then
   * stringifying 40,000 objects cost more than everything else). Same JSON as JSON.stringify(await get(id)).
   * `settings.clients` comes from the texts kept of earlier reads where there is one (clients-text-cache.ts), with
   * the entries of clients changed since patched in: then only `clientStats` is built.
   */
  async getJson(id: number): Promise<string> {
    const ib = await this.mustGet(id);
    const multi = MULTI_CLIENT_PROTOCOLS.includes(ib.protocol);
    const project = { protocol: ib.protocol, flowEligible: flowEligible(ib.protocol, ib.streamSettings) };
    const shape = `${project.protocol}/${project.flowEligible}`;
    const since = this.clientsText.mark;
    const kept = multi
      ? await this.clientsText.get(id, shape, (emails) => this.store.inbounds.clientEntriesJson(id, project, emails))
      : null;
    const arrays = await this.store.inbounds.attachedJson(id, project, multi && kept === null);
    const clients = kept ?? arrays.clients ?? '[]';
    if (multi && kept === null)
      this.clientsText.put(id, shape, clients, arrays.lastClientId, arrays.delayedStart, since);
    const mark = `\u0001${randomAlnum(24)}`;
    const view: Record<string, unknown> & { settings: Json } = { ...this.view(ib, [], false), clientStats: `${mark}s` };
    if (multi) view.settings.clients = `${mark}c`;
    const text = JSON.stringify(view);
    const values: [string, string][] = [[JSON.stringify(`${mark}s`), arrays.stats]];
    if (multi) values.push([JSON.stringify(`${mark}c`), clients]);
    const spliced = splice(text, values);
    if (spliced !== null) return spliced;
    return JSON.stringify(await this.get(id)); // the marker text was not found exactly once (cannot happen)
  }

  async options(): Promise<InboundOption[]> {
    return (await this.store.inbounds.list()).map((ib) => ({
      id: ib.id,
      remark: ib.remark,
      protocol: ib.protocol,
      port: ib.port,
      tlsFlowCapable: tlsFlowCapable(ib.protocol, ib.streamSettings),
    }));
  }

  // ---- writes ----------------------------------------------------------------------------------------------------

  /** Validates the input and builds the row (tag still to be chosen). */
  private async build(input: InboundInput, current?: InboundRecord): Promise<InboundWrite> {
    const fields = { settings: input.settings, streamSettings: input.streamSettings, sniffing: input.sniffing };
    let nodeId = input.nodeId ?? null;
    if (nodeId === 0) nodeId = null;
    if (nodeId !== null && !NODE_CAPABLE_PROTOCOLS.includes(input.protocol)) nodeId = null;
    if (nodeId !== null && !(await this.store.inbounds.nodeExists(nodeId)))
      throw new DomainError(`nodeId: node ${nodeId} not found`, 'not_found');
    const listen = (input.listen ?? '').trim();
    return {
      userId: current?.userId ?? this.userId,
      total: input.total ?? 0,
      remark: input.remark ?? '',
      enable: input.enable ?? true,
      expiryTime: input.expiryTime ?? 0,
      listen,
      port: input.port,
      protocol: input.protocol,
      settings: stripClients(fields.settings!),
      streamSettings: fields.streamSettings!,
      sniffing: fields.sniffing!,
      tag: '',
      nodeId,
    };
  }

  /**
   * The port must not collide with another inbound on an overlapping listen address and a shared transport (same
   * node), and must be free on this host (a bind test per transport). On update, the inbound's own listeners
   * (held by the running core) do not count against it.
   */
  private async checkPort(w: InboundWrite, self?: InboundRecord): Promise<void> {
    if (isSocketListen(w.listen)) return;
    const mine = transportsOf(w.protocol, w.settings, w.streamSettings);
    for (const other of await this.store.inbounds.byPort(w.port)) {
      if (self && other.id === self.id) continue;
      if ((other.nodeId ?? null) !== (w.nodeId ?? null)) continue;
      if (!listenOverlaps(other.listen, w.listen)) continue;
      const shared = sharedTransports(mine, transportsOf(other.protocol, other.settings, other.streamSettings));
      if (!anyTransport(shared)) continue;
      throw new DomainError(
        `port ${w.port} is already used by inbound '${other.remark || other.tag}' (id ${other.id}, ${transportName(shared)})`,
        'port_in_use',
      );
    }
    if (w.nodeId !== null) return; // a node's ports are the node's business
    let toProbe: Transports = mine;
    if (self && self.nodeId === null && self.port === w.port && listenOverlaps(self.listen, w.listen)) {
      const held = transportsOf(self.protocol, self.settings, self.streamSettings);
      toProbe = { tcp: mine.tcp && !held.tcp, udp: mine.udp && !held.udp };
    }
    if (!anyTransport(toProbe)) return;
    const r = await this.probe.probe(w.listen, w.port, toProbe);
    if (!r.free)
      throw new DomainError(
        `port ${w.port} is already in use on this host (${r.transport}${w.listen ? ` on ${w.listen}` : ''}): ${r.reason}`,
        'port_in_use',
      );
  }

  private async chooseTag(w: InboundWrite, exceptId?: number): Promise<string> {
    const base = baseTag(w.port, w.nodeId, transportsOf(w.protocol, w.settings, w.streamSettings));
    for (let i = 1; i < 1000; i++) {
      const tag = i === 1 ? base : `${base}-${i}`;
      if (!(await this.store.inbounds.tagTaken(tag, exceptId))) return tag;
    }
    throw new DomainError(`could not pick a unique tag for port ${w.port}`);
  }

  async add(raw: InboundInput): Promise<InboundView> {
    const w = await this.build(raw);
    await this.checkPort(w);
    for (let attempt = 0; attempt < 5; attempt++) {
      w.tag = await this.chooseTag(w);
      const created = await this.store.inbounds.create(w);
      if (created) {
        this.changed([created.id], 'add');
        return this.view(created, [], false);
      }
    }
    throw new DomainError(`could not pick a unique tag for port ${w.port}`);
  }

  async update(id: number, raw: InboundInput): Promise<InboundView> {
    const cur = await this.mustGet(id);
    const w = await this.build(raw, cur);
    const attached = await this.store.inbounds.attachedClients([id]);
    if (w.protocol !== cur.protocol && attached.length > 0) {
      throw new DomainError(
        `protocol: cannot change ${cur.protocol} to ${w.protocol} while ${attached.length} client(s) are attached; detach them first`,
      );
    }
    await this.checkPort(w, cur);
    const sameTagBasis =
      w.port === cur.port &&
      w.nodeId === cur.nodeId &&
      transportName(transportsOf(w.protocol, w.settings, w.streamSettings)) ===
        transportName(transportsOf(cur.protocol, cur.settings, cur.streamSettings));
    w.tag = sameTagBasis ? cur.tag : await this.chooseTag(w, id);
    const saved = await this.store.inbounds.update(id, w);
    if (!saved) throw new DomainError(`inbound ${id} not found`, 'not_found');
    const touched = await this.refreshShadowsocksClients(saved, attached);
    this.changed([id], 'update');
    // A changed nodeId moves the inbound with its clients (local core <-> node): every client of it changed place.
    const moved = (cur.nodeId ?? null) !== (saved.nodeId ?? null) ? attached.map((r) => r.client.email) : [];
    const emails = [...new Set([...touched, ...moved])];
    if (emails.length) this.events.emit('clients.changed', { emails, action: moved.length ? 'inboundMove' : 'update' });
    return this.get(id);
  }

  /**
   * After a Shadowsocks method change: legacy clients get the new method; 2022 keys of the wrong length are replaced.
   */
  private async refreshShadowsocksClients(ib: InboundRecord, rows: AttachedClientRow[]): Promise<string[]> {
    if (ib.protocol !== 'shadowsocks') return [];
    const method = ssMethodOf(ib);
    const touched: string[] = [];
    for (const r of rows) {
      const c = r.client;
      const wants2022 = ss2022KeyBytes(method) > 0;
      const ok = wants2022 ? validSs2022Key(method, c.password) && c.method === '' : c.method === method;
      if (ok) continue;
      const inbounds = await this.store.inbounds.ofClient(c.id);
      const fixed = applyProtocolRules({ ...c }, inbounds);
      const { id: _id, ...row } = { ...fixed, flow: c.flow, reverse: c.reverse, updatedAt: this.clock.now() };
      await this.store.clients.replace(c.id, c.email, row);
      touched.push(c.email);
    }
    return touched;
  }

  async remove(id: number): Promise<void> {
    // The clients lose this inbound (links cascade): say so, as a detach would (core, nodes, lists follow).
    const emails = (await this.store.inbounds.attachedClients([id])).map((r) => r.client.email);
    if (!(await this.store.inbounds.remove(id))) throw new DomainError(`inbound ${id} not found`, 'not_found');
    this.changed([id], 'del');
    if (emails.length) this.events.emit('clients.changed', { emails, action: 'inboundDel' });
  }

  async setEnable(id: number, enable: boolean): Promise<void> {
    if (!(await this.store.inbounds.setEnable(id, enable)))
      throw new DomainError(`inbound ${id} not found`, 'not_found');
    this.changed([id], enable ? 'enable' : 'disable');
  }

  async resetTraffic(id: number): Promise<void> {
    if ((await this.store.inbounds.resetTraffic(id)) === 0)
      throw new DomainError(`inbound ${id} not found`, 'not_found');
    this.changed([id], 'resetTraffic');
  }

  async resetAllTraffics(): Promise<void> {
    await this.store.inbounds.resetTraffic('all');
    this.changed('all', 'resetAllTraffics');
  }

  /**
   * Imports an exported inbound (parsed by importBody) with its clients: one transaction creates the new clients
   * and attaches existing emails (not duplicated). The port rules of `add` apply.
   */
  async import({ inbound: input, clients: imported }: InboundImport): Promise<InboundView> {
    const w = await this.build(input);
    await this.checkPort(w);
    w.tag = await this.chooseTag(w);
    const now = this.clock.now();
    const clients: ClientWrite[] = [];
    const target = { protocol: w.protocol, settings: w.settings, streamSettings: w.streamSettings };
    for (const c of imported) {
      clients.push(
        applyProtocolRules(
          {
            email: c.email,
            subId: c.subId || randomSubId(),
            uuid: c.id ?? c.uuid ?? '',
            password: c.password ?? '',
            auth: c.auth ?? '',
            flow: c.flow === 'none' ? '' : (c.flow ?? ''),
            security: c.security ?? '',
            method: '',
            totalGB: c.totalGB ?? 0,
            expiryTime: c.expiryTime ?? 0,
            enable: c.enable ?? true,
            limitIp: c.limitIp ?? 0,
            tgId: c.tgId ?? 0,
            comment: c.comment ?? '',
            group: (c.group ?? '').trim(),
            reverse: c.reverse && c.reverse.tag ? { tag: c.reverse.tag } : null,
            reset: c.reset ?? 0,
            createdAt: c.createdAt ?? now,
            updatedAt: now,
          },
          [target],
        ),
      );
    }
    const res = await this.store.inbounds.importWithClients(w, clients, now);
    if (!res) throw new DomainError(`could not pick a unique tag for port ${w.port}; try again`);
    // Existing clients attached to the imported inbound get the secrets its protocol needs.
    const fixed: string[] = [];
    for (const email of res.attached) {
      const c = await this.store.clients.byEmail(email);
      if (!c) continue;
      const inbounds = await this.store.inbounds.ofClient(c.id);
      const filled = applyProtocolRules({ ...c }, inbounds);
      if (
        filled.uuid === c.uuid &&
        filled.password === c.password &&
        filled.auth === c.auth &&
        filled.method === c.method
      )
        continue;
      const { id: _id, ...row } = { ...filled, flow: c.flow, reverse: c.reverse, updatedAt: now };
      await this.store.clients.replace(c.id, c.email, row);
      fixed.push(email);
    }
    this.changed([res.inbound.id], 'import');
    const emails = [...res.created, ...res.attached];
    if (emails.length) this.events.emit('clients.changed', { emails, action: 'import' });
    return this.get(res.inbound.id);
  }

  async fallbacks(id: number): Promise<FallbackRule[]> {
    await this.mustGet(id);
    return this.store.inbounds.fallbacks(id);
  }

  /** Replaces the whole list atomically; the master must be VLESS/Trojan over TCP with TLS; children must exist. */
  async setFallbacks(id: number, body: FallbacksBody): Promise<FallbackRule[]> {
    const master = await this.mustGet(id);
    const rules = body.fallbacks;
    if (rules.length > 0 && !fallbackMasterCapable(master.protocol, master.streamSettings)) {
      throw new DomainError(
        `inbound ${id} cannot have fallbacks: the master must be VLESS or Trojan over TCP with TLS`,
      );
    }
    const childIds = [...new Set(rules.map((r) => r.childId))];
    const children = new Set((await this.store.inbounds.byIds(childIds)).map((c) => c.id));
    for (const [i, r] of rules.entries()) {
      if (r.childId === id) throw new DomainError(`fallbacks[${i}].childId: an inbound cannot fall back to itself`);
      if (!children.has(r.childId))
        throw new DomainError(`fallbacks[${i}].childId: inbound ${r.childId} not found`, 'not_found');
    }
    const saved = await this.store.inbounds.replaceFallbacks(
      id,
      rules.map((r, i) => ({
        childId: r.childId,
        name: r.name ?? '',
        alpn: r.alpn ?? '',
        path: r.path ?? '',
        xver: r.xver ?? 0,
        sortOrder: r.sortOrder ?? i,
      })),
    );
    this.changed([id], 'fallbacks');
    return saved;
  }
}
