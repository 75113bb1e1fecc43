// Converts a 3x-ui database (x-ui.db of the v2.x line or of v3.x) into this panel's tables. Pure: the storage
// layer reads the file's tables and writes the result into a fresh panel database, which is then restored like
// any backup. What has no counterpart here is listed in `skipped` with the reason, never dropped silently.
//
// Layouts (learned from the reference's GORM models): both lines have users, inbounds (settings JSON with
// `clients`, stream_settings, sniffing, tag), settings (key/value strings), client_traffics (one row per email:
// up, down, enable, expiry_time, total, reset, last_online) and outbound_traffics. v3.x adds clients (one row per
// email), client_inbounds, client_groups, inbound_fallbacks, api_tokens (SHA-256 of the token), nodes and
// custom_geo_resources. The all-time counters (all_time) were dropped by this panel and are ignored.
import type { ConversionResult, ConvertedPanel, ForeignDatabase } from '../ports/backup-repo.js';
import { PROTOCOLS } from '../inbounds/model.js';
import { parseSetting, SETTING_KEYS, type SettingKey } from '../settings/schema.js';
import { parseTemplate } from '../core/template.js';
import { randomAlnum } from '../shared/random.js';

type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

export interface ConvertOptions {
  now: number;
  hashPassword: (password: string) => Promise<string>;
}

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const num = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : Number(str(v).trim() || 0);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};
const bool = (v: unknown, dflt = false): boolean => {
  if (v === null || v === undefined || v === '') return dflt;
  return v === true || v === 1 || v === '1' || v === 'true';
};
/** 3x-ui stamps last_online in milliseconds; this panel keeps Unix seconds. */
const unixSeconds = (v: number): number => (v > 100_000_000_000 ? Math.floor(v / 1000) : v);
function parseObject(text: unknown): Json | null {
  if (typeof text !== 'string' || !text.trim()) return null;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

/** 3x-ui protocol names → this panel's; absent = no counterpart. */
const PROTOCOL_MAP: Record<string, string> = Object.fromEntries([
  ...PROTOCOLS.map((p) => [p, p]),
  ['dokodemo-door', 'dokodemo'],
  ['Dokodemo-door', 'dokodemo'],
]);

/** 3x-ui setting keys whose name differs here; every other key is tried under its own name. */
const SETTING_RENAMES: Record<string, string> = {
  restartXrayOnClientDisable: 'restartCoreOnClientDisable',
  tgBotAPIServer: 'tgBotApiUrl',
};
/** 3x-ui settings that are internal to it (never an operator's choice): left out without a line in the report. */
const XUI_INTERNAL = new Set(['secret', 'datepicker']);

const BCRYPT = /^\$2[abxy]?\$\d\d\$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;

interface ClientAcc {
  row: ConvertedPanel['clients'][number];
  inbounds: Set<number>;
  /** The first inbound that listed the client (the credentials kept). */
  origin: string;
}

export async function convertXui(db: ForeignDatabase, opts: ConvertOptions): Promise<ConversionResult> {
  const T = (name: string): Row[] => db.tables[name] ?? [];
  const skipped: ConversionResult['skipped'] = [];
  const skip = (what: string, reason: string) => skipped.push({ what, reason });
  const panel: ConvertedPanel = {
    users: [],
    settings: [],
    apiTokens: [],
    nodes: [],
    inbounds: [],
    customGeo: [],
    clients: [],
    clientInbounds: [],
    clientTraffics: [],
    clientGroups: [],
    fallbacks: [],
    outboundTraffics: [],
  };
  let newAdminPassword: string | undefined;

  // ---- admin ----
  const users = [...T('users')].sort((a, b) => num(a.id) - num(b.id));
  const admin = users[0];
  if (admin) {
    const username = str(admin.username).trim() || 'admin';
    const stored = str(admin.password);
    let hash: string;
    if (stored && !BCRYPT.test(stored)) {
      // Older x-ui lines kept the password itself: hash it the way this panel does.
      hash = await opts.hashPassword(stored);
    } else {
      newAdminPassword = randomAlnum(20);
      hash = await opts.hashPassword(newAdminPassword);
      skip(
        `admin password of ${username}`,
        'stored as a bcrypt hash, which this panel does not verify: a new password was set and is shown once',
      );
    }
    panel.users.push({ id: 1, username, passwordHash: hash, sessionVersion: 1 });
    if (str(admin.login_secret))
      skip(`login secret of ${username}`, 'this panel has no login secret; use two-factor login instead');
  }
  for (const u of users.slice(1)) skip(`user ${str(u.username)}`, 'this panel has a single admin');

  // ---- settings ----
  const seen = new Set<string>();
  for (const s of T('settings')) {
    const key = str(s.key);
    const value = str(s.value);
    if (!key || XUI_INTERNAL.has(key) || seen.has(key)) continue;
    seen.add(key);
    if (key === 'xrayTemplateConfig') {
      try {
        panel.settings.push({ key: 'coreSetting', value: parseTemplate(value) });
      } catch (err) {
        skip(
          'setting xrayTemplateConfig',
          `not a usable core template: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      continue;
    }
    if (key === 'xrayOutboundTestUrl') {
      panel.settings.push({ key: 'outboundTestUrl', value });
      continue;
    }
    const ours = SETTING_RENAMES[key] ?? key;
    if (!(SETTING_KEYS as string[]).includes(ours)) {
      skip(`setting ${key}`, 'no counterpart in this panel');
      continue;
    }
    if (value === '' && ours.endsWith('Url')) continue; // an unset URL: keep this panel's default
    const r = parseSetting(ours as SettingKey, value);
    if (r.ok) panel.settings.push({ key: ours, value: r.value });
    else skip(`setting ${key}`, `value ${JSON.stringify(value.slice(0, 64))} refused: ${r.msg}`);
  }

  // ---- API tokens (v3.x) ----
  for (const t of T('api_tokens')) {
    const name = str(t.name);
    const token = str(t.token);
    if (SHA256_HEX.test(token)) {
      skip(`API token ${name}`, '3x-ui keeps only a SHA-256 hash of the token; create a new token here');
      continue;
    }
    panel.apiTokens.push({ name, token, enabled: bool(t.enabled, true), createdAt: num(t.created_at) || opts.now });
  }

  // ---- nodes (v3.x) ----
  for (const n of T('nodes')) {
    panel.nodes.push({
      id: num(n.id),
      name: str(n.name),
      remark: str(n.remark),
      scheme: str(n.scheme) || 'https',
      address: str(n.address),
      port: num(n.port),
      basePath: str(n.base_path) || '/',
      apiToken: str(n.api_token),
      enable: bool(n.enable, true),
      allowPrivateAddress: bool(n.allow_private_address),
      createdAt: num(n.created_at) || opts.now,
      updatedAt: num(n.updated_at) || opts.now,
    });
  }
  const nodeIds = new Set(panel.nodes.map((n) => n.id));

  // ---- inbounds and the clients they list ----
  const clients = new Map<string, ClientAcc>();
  const addClient = (
    email: string,
    fields: Partial<ConvertedPanel['clients'][number]>,
    inboundId: number | null,
    origin: string,
  ) => {
    let acc = clients.get(email);
    if (!acc) {
      acc = {
        row: {
          id: clients.size + 1,
          email,
          subId: '',
          uuid: '',
          password: '',
          auth: '',
          flow: '',
          security: '',
          method: '',
          totalGB: 0,
          expiryTime: 0,
          enable: true,
          limitIp: 0,
          tgId: 0,
          comment: '',
          group: '',
          reverse: null,
          reset: 0,
          createdAt: opts.now,
          updatedAt: opts.now,
          ...fields,
        },
        inbounds: new Set(),
        origin,
      };
      clients.set(email, acc);
    } else {
      // Another inbound lists the same email: it is attached there too; credentials missing so far are filled in.
      for (const k of ['uuid', 'password', 'auth', 'method', 'flow', 'security'] as const) {
        const theirs = fields[k];
        if (!theirs) continue;
        if (!acc.row[k]) acc.row[k] = theirs;
        else if (acc.row[k] !== theirs && k !== 'flow' && k !== 'security') {
          skip(
            `${k} of client ${email} in ${origin}`,
            `differs from the one in ${acc.origin}, which is kept (one client, one credential)`,
          );
        }
      }
    }
    if (inboundId !== null) acc.inbounds.add(inboundId);
  };

  const clientFields = (c: Json): Partial<ConvertedPanel['clients'][number]> => {
    const reverse =
      c.reverse && typeof c.reverse === 'object' && str((c.reverse as Json).tag)
        ? JSON.stringify({ tag: str((c.reverse as Json).tag) })
        : null;
    return {
      uuid: str(c.id),
      password: str(c.password),
      auth: str(c.auth),
      flow: str(c.flow),
      security: str(c.security),
      method: str(c.method),
      subId: str(c.subId),
      totalGB: num(c.totalGB),
      expiryTime: num(c.expiryTime),
      enable: bool(c.enable, true),
      limitIp: num(c.limitIp),
      tgId: num(c.tgId),
      comment: str(c.comment),
      group: str(c.group),
      reverse,
      reset: num(c.reset),
      createdAt: num(c.created_at) || opts.now,
      updatedAt: num(c.updated_at) || opts.now,
    };
  };

  // v3.x: the clients table is the record of each client.
  const v3ClientEmail = new Map<number, string>();
  for (const c of [...T('clients')].sort((a, b) => num(a.id) - num(b.id))) {
    const email = str(c.email);
    if (!email) {
      skip(`client row ${num(c.id)}`, 'no email');
      continue;
    }
    v3ClientEmail.set(num(c.id), email);
    addClient(
      email,
      {
        uuid: str(c.uuid),
        password: str(c.password),
        auth: str(c.auth),
        flow: str(c.flow),
        security: str(c.security),
        subId: str(c.sub_id),
        totalGB: num(c.total_gb),
        expiryTime: num(c.expiry_time),
        enable: bool(c.enable, true),
        limitIp: num(c.limit_ip),
        tgId: num(c.tg_id),
        comment: str(c.comment),
        group: str(c.group_name),
        reset: num(c.reset),
        reverse:
          parseObject(c.reverse) && str(parseObject(c.reverse)!.tag)
            ? JSON.stringify({ tag: str(parseObject(c.reverse)!.tag) })
            : null,
        createdAt: num(c.created_at) || opts.now,
        updatedAt: num(c.updated_at) || opts.now,
      },
      null,
      'the clients table',
    );
  }

  const inboundIds = new Set<number>();
  const tags = new Set<string>();
  for (const ib of [...T('inbounds')].sort((a, b) => num(a.id) - num(b.id))) {
    const id = num(ib.id);
    const label = `inbound ${id} (${str(ib.remark) || str(ib.tag)}, port ${num(ib.port)})`;
    const protocol = PROTOCOL_MAP[str(ib.protocol)];
    if (!protocol) {
      skip(label, `protocol ${str(ib.protocol)} has no counterpart in this panel`);
      continue;
    }
    const settings = parseObject(ib.settings) ?? {};
    if (str(ib.settings).trim() && !parseObject(ib.settings)) {
      skip(label, 'its settings are not a JSON object');
      continue;
    }
    const stream = parseObject(ib.stream_settings) ?? {};
    const sniffing = parseObject(ib.sniffing) ?? {};
    let tag = str(ib.tag) || `inbound-${num(ib.port)}`;
    if (tags.has(tag)) tag = `${tag}-${id}`;
    tags.add(tag);
    const nodeId = ib.node_id === null || ib.node_id === undefined ? null : num(ib.node_id);
    if (nodeId !== null && !nodeIds.has(nodeId)) {
      skip(label, `runs on node ${nodeId}, which is not in the file`);
      continue;
    }
    const listed = Array.isArray(settings.clients) ? (settings.clients as unknown[]) : [];
    const { clients: _listed, ...rest } = settings;
    panel.inbounds.push({
      id,
      up: num(ib.up),
      down: num(ib.down),
      total: num(ib.total),
      remark: str(ib.remark),
      enable: bool(ib.enable, true),
      expiryTime: num(ib.expiry_time),
      listen: str(ib.listen),
      port: num(ib.port),
      protocol,
      settings: JSON.stringify(rest),
      streamSettings: JSON.stringify(stream),
      sniffing: JSON.stringify(sniffing),
      tag,
      nodeId,
    });
    inboundIds.add(id);
    const reset = str(ib.traffic_reset);
    if (reset && reset !== 'never')
      skip(
        `traffic reset schedule of ${label}`,
        `"${reset}" inbound resets have no counterpart here (clients have their own reset period)`,
      );
    listed.forEach((entry, i) => {
      if (!entry || typeof entry !== 'object') {
        skip(`client ${i} of ${label}`, 'not an object');
        return;
      }
      const c = entry as Json;
      const email = str(c.email);
      if (!email) {
        skip(`client ${i} of ${label}`, 'no email');
        return;
      }
      addClient(email, clientFields(c), id, label);
    });
  }

  // v3.x attachments
  for (const link of T('client_inbounds')) {
    const email = v3ClientEmail.get(num(link.client_id));
    const inboundId = num(link.inbound_id);
    if (!email || !inboundIds.has(inboundId)) continue;
    clients.get(email)!.inbounds.add(inboundId);
  }

  for (const acc of clients.values()) {
    panel.clients.push(acc.row);
    for (const inboundId of [...acc.inbounds].sort((a, b) => a - b))
      panel.clientInbounds.push({ clientId: acc.row.id, inboundId });
  }

  // ---- traffic ----
  const trafficSeen = new Set<string>();
  for (const t of T('client_traffics')) {
    const email = str(t.email);
    if (!email || trafficSeen.has(email)) continue;
    trafficSeen.add(email);
    // Kept also for an email no inbound lists any more, as this panel keeps a deleted client's counters.
    panel.clientTraffics.push({
      email,
      up: num(t.up),
      down: num(t.down),
      enable: bool(t.enable, true),
      lastOnline: unixSeconds(num(t.last_online)),
    });
  }
  // 3x-ui marks a depleted client (quota used, expiry passed) on its traffic row only; here a depleted client is
  // disabled with that mark, which is what lets a renewal turn it back on.
  const depleted = new Set(panel.clientTraffics.filter((t) => !t.enable).map((t) => t.email));
  for (const c of panel.clients) if (depleted.has(c.email)) c.enable = false;
  for (const t of T('outbound_traffics')) {
    if (str(t.tag)) panel.outboundTraffics.push({ tag: str(t.tag), up: num(t.up), down: num(t.down) });
  }

  // ---- groups (v3.x table, plus every label a client carries) ----
  const groups = new Map<string, number>();
  for (const g of T('client_groups')) if (str(g.name)) groups.set(str(g.name), num(g.created_at) || opts.now);
  for (const c of panel.clients) if (c.group && !groups.has(c.group)) groups.set(c.group, opts.now);
  for (const [name, createdAt] of groups) panel.clientGroups.push({ name, createdAt });

  // ---- fallbacks (v3.x table; v2.x keeps them inside the master's settings, carried over as they are) ----
  for (const f of T('inbound_fallbacks')) {
    const masterId = num(f.master_id);
    const childId = num(f.child_id);
    if (!inboundIds.has(masterId) || !inboundIds.has(childId)) {
      skip(
        `fallback ${num(f.id)} of inbound ${masterId}`,
        `inbound ${inboundIds.has(masterId) ? childId : masterId} was not converted`,
      );
      continue;
    }
    panel.fallbacks.push({
      masterId,
      childId,
      name: str(f.name),
      alpn: str(f.alpn),
      path: str(f.path),
      xver: num(f.xver),
      sortOrder: num(f.sort_order),
    });
  }

  // ---- custom geo sources (v3.x) ----
  for (const g of T('custom_geo_resources')) {
    const type = str(g.geo_type) || str(g.type);
    if (type !== 'geoip' && type !== 'geosite') {
      skip(`custom geo source ${str(g.alias)}`, `type ${type} is not geoip or geosite`);
      continue;
    }
    panel.customGeo.push({ type, alias: str(g.alias), url: str(g.url), lastDownload: num(g.last_updated_at) });
  }

  // ---- what is left out on purpose ----
  const ips = T('inbound_client_ips').length;
  if (ips) skip(`client IP history (${ips} clients)`, 'recorded again from the access log when the IP limit is on');
  const nodeTraffic = T('node_client_traffics').length;
  if (nodeTraffic) skip(`per-node client traffic (${nodeTraffic} rows)`, 'this panel keeps one counter per client');

  return {
    panel,
    skipped,
    converted: {
      inbounds: panel.inbounds.length,
      clients: panel.clients.length,
      clientTraffics: panel.clientTraffics.length,
      settings: panel.settings.length,
      apiTokens: panel.apiTokens.length,
      groups: panel.clientGroups.length,
      fallbacks: panel.fallbacks.length,
      nodes: panel.nodes.length,
      customGeo: panel.customGeo.length,
      users: panel.users.length,
    },
    newAdminPassword,
  };
}
