// The core-config builder (pure): template + enabled local inbounds + their enabled clients + fallback rules →
// the config the core runs. Handles the two core flavours: Xray (target) and V2Ray v4, where what V2Ray cannot
// run is adapted or left out with a reason (core-notes.md) — never a REALITY inbound running as plaintext.
import type { Json, Protocol } from '../inbounds/model.js';
import type { CoreFlavour } from '../ports/core.js';
import type { CoreClient, CoreFallback, CoreInbound, CoreViewData } from '../ports/core-view.js';
import { clientEntry, isSs2022 } from './clients.js';
import { ensureApi } from './template.js';

export interface BuildOptions {
  flavour: CoreFlavour;
  apiPort: number;
  /** When set, the core's access log goes to this file (the IP-limit reader parses it). */
  accessLog?: string;
}

/** One panel inbound as emitted, with what the live sync needs to diff it. */
export interface BuiltInbound {
  id: number;
  tag: string;
  protocol: Protocol;
  /** The inbound exactly as in the config (with its clients). */
  json: Json;
  /** The inbound without its client list, as text: when it changes the inbound must be replaced. */
  shapeKey: string;
  /** email → the user's entry as text (when it changes the user must be replaced). */
  users: Map<string, string>;
  /** False when users cannot be added or removed live (V2Ray's single-user shadowsocks). */
  liveUsers: boolean;
  /** The stored inbound it came from (settings/streamSettings decide entries and accounts). */
  source: CoreInbound;
}

export interface BuildResult {
  config: Json;
  inbounds: BuiltInbound[];
  /** Why something was adapted or left out (shown in getCoreResult). */
  notes: string[];
  /** Inbounds left out only because they have no enabled client yet (a client change brings them in). */
  waitingForClients: number[];
}

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const clone = <T>(v: T): T => structuredClone(v);

/** Transports V2Ray 4.34 rejects. */
const V2RAY_BAD_NETWORKS = new Set(['xhttp', 'httpupgrade', 'grpc', 'splithttp']);
const CLIENT_PROTOCOLS = new Set<Protocol>(['vless', 'vmess', 'trojan', 'shadowsocks', 'hysteria', 'hysteria2']);

/** The core's protocol name for a panel protocol. */
function coreProtocol(p: Protocol, flavour: CoreFlavour): string {
  if (p === 'dokodemo') return 'dokodemo-door';
  if (p === 'tunnel') return flavour === 'v2ray' ? 'dokodemo-door' : 'tunnel';
  if (p === 'hysteria2') return 'hysteria';
  return p;
}

/** Strips panel-only keys (external proxies, client-side share data) from streamSettings. */
function cleanStream(stream: Json): Json {
  const s = clone(stream);
  delete s.externalProxy;
  for (const k of ['tlsSettings', 'realitySettings']) {
    if (isObject(s[k])) delete (s[k] as Json).settings;
  }
  return s;
}

function fallbackDest(child: CoreInbound): string | number {
  const l = child.listen;
  if (l.startsWith('/') || l.startsWith('@')) return l;
  if (!l || l === '0.0.0.0' || l === '::' || l === '::0') return child.port;
  return l.includes(':') ? `[${l}]:${child.port}` : `${l}:${child.port}`;
}

/** Why V2Ray cannot run this inbound at all, or null. */
function v2rayRefusal(ib: CoreInbound): string | null {
  const stream = ib.streamSettings;
  const net = str(stream.network) || 'tcp';
  const sec = str(stream.security) || 'none';
  if (['hysteria', 'hysteria2', 'mixed', 'wireguard'].includes(ib.protocol))
    return `V2Ray has no ${ib.protocol} inbound`;
  if (sec === 'reality') return 'V2Ray has no REALITY (it would run the inbound as plain, unencrypted traffic)';
  if (sec === 'xtls') return 'V2Ray 4.34 has no XTLS security';
  if (V2RAY_BAD_NETWORKS.has(net)) return `V2Ray 4.34 has no ${net} transport`;
  if (ib.protocol === 'vless' && str(ib.settings.decryption) && str(ib.settings.decryption) !== 'none')
    return 'V2Ray only runs VLESS with decryption "none"';
  if (ib.protocol === 'shadowsocks' && isSs2022(str(ib.settings.method)))
    return 'V2Ray has no shadowsocks-2022 ciphers';
  return null;
}

export function buildCoreConfig(template: Json, view: CoreViewData, opts: BuildOptions): BuildResult {
  const v2 = opts.flavour === 'v2ray';
  const notes: string[] = [];
  const config = ensureApi(clone(template), opts.apiPort);
  if (opts.accessLog) config.log = { ...(isObject(config.log) ? config.log : {}), access: opts.accessLog };
  if (!isObject(config.log)) config.log = { loglevel: 'warning' };
  else if (!str((config.log as Json).loglevel)) (config.log as Json).loglevel = 'warning';

  const templateInbounds = config.inbounds as Json[];
  const usedTags = new Set(templateInbounds.map((ib) => str(ib.tag)).filter(Boolean));
  const byId = new Map(view.inbounds.map((ib) => [ib.id, ib]));
  const rulesByMaster = new Map<number, CoreFallback[]>();
  for (const f of view.fallbacks) {
    const list = rulesByMaster.get(f.masterId) ?? [];
    list.push(f);
    rulesByMaster.set(f.masterId, list);
  }

  const built: BuiltInbound[] = [];
  const waitingForClients: number[] = [];
  const sorted = [...view.inbounds].sort((a, b) => a.id - b.id);
  for (const ib of sorted) {
    const label = `inbound "${ib.tag}" (id ${ib.id}, port ${ib.port})`;
    if (!ib.enable || ib.nodeId !== null) continue;
    if (usedTags.has(ib.tag)) {
      notes.push(`${label} left out: its tag is already used by another inbound`);
      continue;
    }
    if (v2) {
      const why = v2rayRefusal(ib);
      if (why) {
        notes.push(`${label} left out: ${why}`);
        continue;
      }
    }
    const clients = view.clients.get(ib.id) ?? [];
    const settings = clone(ib.settings);
    delete settings.clients;
    let liveUsers = CLIENT_PROTOCOLS.has(ib.protocol);
    const users = new Map<string, string>();
    const entries: Json[] = [];
    if (CLIENT_PROTOCOLS.has(ib.protocol)) {
      // One pass (100k clients): entry, flavour adaptation, and the entry's text for the live sync's diffs.
      for (const c of clients) {
        const e = clientEntry(ib.protocol, c, ib);
        if (e === null) continue;
        if (v2) delete e.reverse;
        entries.push(e);
        users.set(str(e.email), JSON.stringify(e));
      }
    }
    if (ib.protocol === 'hysteria2') settings.version = 2;
    if (ib.protocol === 'shadowsocks' && v2) {
      // V2Ray's shadowsocks inbound is single-user: fold the first enabled client into the top level.
      liveUsers = false;
      const first = clients[0];
      if (!first) {
        notes.push(`${label} left out: V2Ray's shadowsocks inbound needs one enabled client and it has none`);
        waitingForClients.push(ib.id);
        continue;
      }
      if (clients.length > 1)
        notes.push(
          `${label}: V2Ray's shadowsocks inbound is single-user; only ${first.email} runs, ${clients.length - 1} other client(s) left out`,
        );
      const entry = entries[0]!;
      settings.method = str(entry.method) || str(settings.method);
      settings.password = first.password;
      settings.email = first.email;
      users.clear();
      users.set(first.email, JSON.stringify(entry));
    } else if (CLIENT_PROTOCOLS.has(ib.protocol)) {
      settings.clients = entries;
    }
    if ((ib.protocol === 'vless' || ib.protocol === 'trojan') && rulesByMaster.has(ib.id)) {
      const fbs: Json[] = [];
      for (const r of [...rulesByMaster.get(ib.id)!].sort((a, b) => a.sortOrder - b.sortOrder)) {
        const child = byId.get(r.childId);
        if (!child || !child.enable || child.nodeId !== null) {
          notes.push(
            `${label}: fallback to inbound ${r.childId} left out (that inbound is missing, disabled or on a node)`,
          );
          continue;
        }
        const fb: Json = {};
        if (r.name) fb.name = r.name;
        if (r.alpn) fb.alpn = r.alpn;
        if (r.path) fb.path = r.path;
        fb.dest = fallbackDest(child);
        fb.xver = r.xver;
        fbs.push(fb);
      }
      settings.fallbacks = fbs;
    }
    if (ib.protocol === 'vless' && !str(settings.decryption)) settings.decryption = 'none';

    const json: Json = { tag: ib.tag };
    if (ib.listen) json.listen = ib.listen; // "listen": "" makes V2Ray panic
    json.port = ib.port;
    json.protocol = coreProtocol(ib.protocol, opts.flavour);
    json.settings = settings;
    const stream = cleanStream(ib.streamSettings);
    if (v2 && stream.network === 'raw') stream.network = 'tcp';
    if (v2 && isObject(stream.rawSettings) && !stream.tcpSettings) {
      stream.tcpSettings = stream.rawSettings;
      delete stream.rawSettings;
    }
    if (Object.keys(stream).length > 0) json.streamSettings = stream;
    if (isObject(ib.sniffing) && Object.keys(ib.sniffing).length > 0) {
      const sniff = clone(ib.sniffing);
      if (v2 && Array.isArray(sniff.destOverride))
        sniff.destOverride = (sniff.destOverride as unknown[]).filter((d) => d !== 'quic' && d !== 'fakedns');
      if (sniff.enabled === false) delete sniff.destOverride;
      json.sniffing = sniff;
    }
    usedTags.add(ib.tag);
    const shape = { ...json, settings: { ...settings } };
    delete (shape.settings as Json).clients;
    built.push({
      id: ib.id,
      tag: ib.tag,
      protocol: ib.protocol,
      json,
      shapeKey: JSON.stringify(shape),
      users,
      liveUsers,
      source: ib,
    });
  }
  config.inbounds = [...templateInbounds, ...built.map((b) => b.json)];
  return { config, inbounds: built, notes, waitingForClients };
}

/** A client entry under a given flavour, as the builder would emit it (for the live sync's diffs). */
export function entryKey(
  protocol: Protocol,
  client: CoreClient,
  source: CoreInbound,
  flavour: CoreFlavour,
): string | null {
  const e = clientEntry(protocol, client, source);
  if (!e) return null;
  if (flavour === 'v2ray') delete e.reverse;
  return JSON.stringify(e);
}
