// Inbounds, fallbacks, and the client rows projected into an inbound on read.
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import type { AttachedJson, AttachedJsonProjection, InboundsRepo } from '../../domain/ports/inbounds-repo.js';
import type { FallbackRule, InboundRecord, InboundWrite, Json, Protocol } from '../../domain/inbounds/model.js';
import type { Conn } from '../conn.js';
import { chunk, clientColumns, insertClientsTx, toBool } from './client-rows.js';
import { jsonRows, raw, withPlannerSettings } from './raw.js';
import { isUniqueViolation } from './errors.js';

const parse = (text: string): Json => {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

type Row = {
  id: number;
  userId: number;
  up: number;
  down: number;
  total: number;
  remark: string;
  enable: boolean;
  expiryTime: number;
  listen: string;
  port: number;
  protocol: string;
  settings: string;
  streamSettings: string;
  sniffing: string;
  tag: string;
  nodeId: number | null;
};

const toInbound = (r: Row): InboundRecord => ({
  ...r,
  protocol: r.protocol as Protocol,
  settings: parse(r.settings),
  streamSettings: parse(r.streamSettings),
  sniffing: parse(r.sniffing),
});

const toRow = (w: InboundWrite) => {
  const { clients: _c, ...settings } = w.settings;
  return {
    ...w,
    settings: JSON.stringify(settings),
    streamSettings: JSON.stringify(w.streamSettings),
    sniffing: JSON.stringify(w.sniffing),
  };
};

export function inboundsRepo(c: Conn): InboundsRepo {
  const { inbounds, fallbacks, clients, clientInbounds, nodes } = c.t;

  const repo: InboundsRepo = {
    async list() {
      return (await c.db.select().from(inbounds).orderBy(asc(inbounds.id))).map(toInbound);
    },
    async byId(id) {
      const [row] = await c.db.select().from(inbounds).where(eq(inbounds.id, id));
      return row ? toInbound(row) : null;
    },
    async byIds(ids) {
      if (ids.length === 0) return [];
      const out: InboundRecord[] = [];
      for (const part of chunk([...new Set(ids)], 2000)) {
        out.push(...(await c.db.select().from(inbounds).where(inArray(inbounds.id, part))).map(toInbound));
      }
      return out.sort((a, b) => a.id - b.id);
    },
    async ofClient(clientId) {
      const rows = await c.db
        .select({ ib: inbounds })
        .from(clientInbounds)
        .innerJoin(inbounds, eq(inbounds.id, clientInbounds.inboundId))
        .where(eq(clientInbounds.clientId, clientId))
        .orderBy(asc(inbounds.id));
      return rows.map((r) => toInbound(r.ib));
    },
    async byPort(port) {
      return (await c.db.select().from(inbounds).where(eq(inbounds.port, port)).orderBy(asc(inbounds.id))).map(
        toInbound,
      );
    },
    async tagTaken(tag, exceptId) {
      const where =
        exceptId === undefined ? eq(inbounds.tag, tag) : and(eq(inbounds.tag, tag), ne(inbounds.id, exceptId));
      const [row] = await c.db.select({ id: inbounds.id }).from(inbounds).where(where);
      return !!row;
    },
    async create(w) {
      try {
        const [row] = await c.write((db) => db.insert(inbounds).values(toRow(w)).returning());
        return row ? toInbound(row) : null;
      } catch (err) {
        if (isUniqueViolation(err)) return null;
        throw err;
      }
    },
    async update(id, w) {
      try {
        const [row] = await c.write((db) => db.update(inbounds).set(toRow(w)).where(eq(inbounds.id, id)).returning());
        return row ? toInbound(row) : null;
      } catch (err) {
        if (isUniqueViolation(err)) return null;
        throw err;
      }
    },
    async remove(id) {
      return c.tx(async (tx) => {
        await tx.db.delete(clientInbounds).where(eq(clientInbounds.inboundId, id));
        await tx.db.delete(fallbacks).where(eq(fallbacks.masterId, id));
        await tx.db.delete(fallbacks).where(eq(fallbacks.childId, id));
        const res = await tx.db.delete(inbounds).where(eq(inbounds.id, id)).returning({ id: inbounds.id });
        return res.length > 0;
      });
    },
    async setEnable(id, enable) {
      const res = await c.write((db) =>
        db.update(inbounds).set({ enable }).where(eq(inbounds.id, id)).returning({ id: inbounds.id }),
      );
      return res.length > 0;
    },
    async resetTraffic(id) {
      const res = await c.write((db) =>
        id === 'all'
          ? db.update(inbounds).set({ up: 0, down: 0 }).returning({ id: inbounds.id })
          : db.update(inbounds).set({ up: 0, down: 0 }).where(eq(inbounds.id, id)).returning({ id: inbounds.id }),
      );
      return res.length;
    },
    async attachedClients(ids) {
      if (ids !== 'all' && ids.length === 0) return [];
      // One JSON value for all rows: an inbound may hold tens of thousands of clients (see jsonRows).
      const where = ids === 'all' ? '' : ` WHERE ci.inbound_id IN (${ids.map(() => '?').join(',')})`;
      const rows = await jsonRows(
        c,
        [
          'ci.inbound_id',
          'cl.id',
          'cl.email',
          'cl.sub_id',
          'cl.uuid',
          'cl.password',
          'cl.auth',
          'cl.flow',
          'cl.security',
          'cl.method',
          'cl.total_bytes',
          'cl.expiry_time',
          'cl.enable',
          'cl.limit_ip',
          'cl.tg_id',
          'cl.comment',
          'cl.group_name',
          'cl.reverse',
          'cl.reset_days',
          'cl.created_at',
          'cl.updated_at',
          'ct.up',
          'ct.down',
          'ct.enable',
          'ct.last_online',
        ],
        `client_inbounds ci JOIN clients cl ON cl.id = ci.client_id LEFT JOIN client_traffics ct ON ct.email = cl.email${where}`,
        'ci.inbound_id, cl.id',
        ids === 'all' ? [] : ids,
      );
      return rows.map((r) => ({
        inboundId: Number(r[0]),
        client: clientColumns(r, 1),
        up: Number(r[21] ?? 0),
        down: Number(r[22] ?? 0),
        trafficEnable: r[23] === null || r[23] === undefined ? true : toBool(r[23]),
        lastOnline: Number(r[24] ?? 0),
      }));
    },
    async attachedJson(inboundId, project, withClients = true) {
      return (c.dialect === 'pg' ? pgAttachedJson : sqliteAttachedJson)(c, inboundId, project, withClients);
    },
    async clientEntriesJson(inboundId, project, emails) {
      if (emails.length === 0) return [];
      const text = c.dialect === 'pg' ? pgEntriesSql(inboundId, project) : sqliteEntriesSql(project);
      const rows = await raw<{ id: unknown; e: string; j: string; d: unknown }>(c, text, [
        inboundId,
        JSON.stringify(emails),
      ]);
      return rows.map((r) => ({
        id: Number(r.id),
        // SQLite gives the email as stored, PostgreSQL as JSON text (the value its entry shows)
        email: c.dialect === 'pg' ? (JSON.parse(r.e) as string) : r.e,
        json: r.j,
        delayedStart: toBool(r.d),
      }));
    },
    async fallbacks(masterId) {
      return c.db
        .select()
        .from(fallbacks)
        .where(eq(fallbacks.masterId, masterId))
        .orderBy(asc(fallbacks.sortOrder), asc(fallbacks.id));
    },
    async replaceFallbacks(masterId, rules) {
      return c.tx(async (tx) => {
        await tx.db.delete(fallbacks).where(eq(fallbacks.masterId, masterId));
        if (rules.length) await tx.db.insert(fallbacks).values(rules.map((r) => ({ ...r, masterId })));
        return tx.db
          .select()
          .from(fallbacks)
          .where(eq(fallbacks.masterId, masterId))
          .orderBy(asc(fallbacks.sortOrder), asc(fallbacks.id)) as Promise<FallbackRule[]>;
      });
    },
    async nodeExists(id) {
      const [row] = await c.db.select({ id: nodes.id }).from(nodes).where(eq(nodes.id, id));
      return !!row;
    },
    async importWithClients(w, newClients, now) {
      try {
        return await c.tx(async (tx) => {
          const [row] = await tx.db.insert(inbounds).values(toRow(w)).returning();
          const inbound = toInbound(row!);
          const emails = newClients.map((x) => x.email);
          const existing = new Map<string, number>();
          for (const part of chunk(emails, 2000)) {
            const rows = await tx.db
              .select({ id: clients.id, email: clients.email })
              .from(clients)
              .where(inArray(clients.email, part));
            for (const r of rows) existing.set(r.email, r.id);
          }
          const fresh = newClients.filter((x) => !existing.has(x.email));
          const res = await insertClientsTx(
            tx,
            fresh.map((row) => ({ row: { ...row, createdAt: now, updatedAt: now }, inboundIds: [inbound.id] })),
          );
          // Emails a concurrent request created meanwhile are attached like any existing client.
          for (const part of chunk(res.taken, 2000)) {
            const rows = await tx.db
              .select({ id: clients.id, email: clients.email })
              .from(clients)
              .where(inArray(clients.email, part));
            for (const r of rows) existing.set(r.email, r.id);
          }
          const links = [...existing.values()].map((clientId) => ({ clientId, inboundId: inbound.id }));
          for (const part of chunk(links, 4000)) await tx.db.insert(clientInbounds).values(part).onConflictDoNothing();
          return { inbound, created: [...res.created.keys()], attached: [...existing.keys()] };
        });
      } catch (err) {
        if (isUniqueViolation(err)) return null;
        throw err;
      }
    },
  };
  return repo;
}

/**
 * Inbounds holding at least this many clients are built by two statements at once, each over one half of the client
 * ids (both cores: two pooled connections on PostgreSQL, the main and the aside connection on SQLite); smaller ones
 * by one statement.
 */
const SPLIT_MIN = 2000;
/** Beyond any client id (an int4 column; the range bounds are bigint parameters). */
const ID_SPAN = 2 ** 31;

/**
 * PostgreSQL side of `attachedJson`: clients looked up by primary key in client id order (no wide sort), each
 * object one `||` chain, and a large inbound split at its median client id into two halves built at once on two
 * pooled connections; a client changed meanwhile can show in its new state in one half only (its entry and its stat
 * always agree). Why and what was measured: docs/clients-and-inbounds.md (inbounds/get).
 */
async function pgAttachedJson(
  c: Conn,
  inboundId: number,
  project: AttachedJsonProjection,
  withClients: boolean,
): Promise<AttachedJson> {
  const text = pgAttachedSql(inboundId, project, withClients);
  // $1 the inbound, $2/$3 the client id range [from, to)
  const read = (from: number, to: number) =>
    (c.inTx
      ? raw<Half>(c, text, [inboundId, from, to])
      : withPlannerSettings(c, { jit: 'off', enable_memoize: 'off' }, (tx) =>
          raw<Half>(tx, text, [inboundId, from, to]),
        )
    ).then((rows) => rows[0]!);
  return joinHalves(await readHalves(c, inboundId, !c.inTx, read), withClients);
}

/** Reads one client id range [from, to) of an inbound: its Half. */
type ReadRange = (from: number, to: number) => Promise<Half>;

/**
 * An inbound's Halves in client id order: one read over every client, or, with `split` and at least SPLIT_MIN
 * clients, two reads at once split at the median client id, the upper half by `readUpper`. The upper read is started
 * first: on SQLite the lower one then runs on this thread (a libsql statement holds it) while the worker runs the
 * other.
 */
async function readHalves(
  c: Conn,
  inboundId: number,
  split: boolean,
  read: ReadRange,
  readUpper: ReadRange = read,
): Promise<Half[]> {
  const [size] = await raw<{ n: unknown }>(c, 'SELECT count(*) AS n FROM client_inbounds WHERE inbound_id = ?', [
    inboundId,
  ]);
  const n = Number(size?.n ?? 0);
  if (n === 0) return [];
  if (n < SPLIT_MIN || !split) return [await read(-ID_SPAN, ID_SPAN)];
  const [median] = await raw<{ id: unknown }>(
    c,
    'SELECT client_id AS id FROM client_inbounds WHERE inbound_id = ? ORDER BY client_id LIMIT 1 OFFSET ?',
    [inboundId, Math.floor(n / 2)],
  );
  const mid = Number(median!.id);
  const upper = readUpper(mid, ID_SPAN);
  return Promise.all([read(-ID_SPAN, mid), upper]);
}

/**
 * One half's arrays: the clients and the stats text without brackets, null when the half holds no client (or the
 * clients were not asked for); `d` whether a client of the half has a delayed expiry (SQLite 0/1, PostgreSQL bool).
 */
type Half = { c: string | null; s: string | null; d: unknown; m: unknown };

/** The arrays of the halves, in order. */
function joinHalves(halves: Half[], withClients: boolean): AttachedJson {
  const join = (parts: (string | null)[]) => {
    let out = ''; // concatenation, not Array.join: V8 keeps the 5 MB pieces and flattens once when the body is written
    for (const p of parts) if (p) out = out ? `${out},${p}` : p;
    return `[${out}]`;
  };
  return {
    clients: withClients ? join(halves.map((h) => h.c)) : null,
    stats: join(halves.map((h) => h.s)),
    delayedStart: halves.some((h) => toBool(h.d)),
    lastClientId: halves.reduce((m, h) => Math.max(m, Number(h.m ?? 0)), 0),
  };
}

/**
 * SQLite side of `attachedJson`: json_object (native, faster there than || concatenation) joined with group_concat,
 * over a subquery in client id order, which the (inbound_id, client_id) index gives without a sort (ORDER BY
 * ci.client_id, not cl.id: the planner only knows the index order for the column it holds). A large inbound is split
 * at its median client id: one half runs on the aside connection's worker thread while the main thread runs the
 * other (docs/decisions/0004-sqlite-read-aside-worker.md). Each half gives both
 * arrays from the same rows; the two are separate reads, so a client changed meanwhile can show in its new state in
 * one half only (each client's entry and stat stay consistent), as on PostgreSQL.
 */
async function sqliteAttachedJson(
  c: Conn,
  inboundId: number,
  project: AttachedJsonProjection,
  withClients: boolean,
): Promise<AttachedJson> {
  const text = sqliteAttachedSql(project, withClients);
  const aside = c.readAside;
  const read: ReadRange = async (from, to) => (await raw<Half>(c, text, [inboundId, from, to]))[0]!;
  // The upper half on the worker; should the worker fail, it is read here instead.
  const readAside: ReadRange = async (from, to) => {
    try {
      return (await aside!(text, [inboundId, from, to]))[0] as Half;
    } catch {
      return read(from, to);
    }
  };
  return joinHalves(await readHalves(c, inboundId, aside !== null, read, readAside), withClients);
}

/**
 * The SQLite statement of one half (see sqliteAttachedJson): `c`, `s`, `d`, `m` as in Half; ? the inbound and the id
 * range [from, to).
 */
function sqliteAttachedSql(project: AttachedJsonProjection, withClients: boolean): string {
  const { client, stat } = sqliteObjects(project);
  return `SELECT ${withClients ? `group_concat(${client}, ',')` : 'NULL'} AS c, group_concat(${stat}, ',') AS s, max(q.expiry_time < 0) AS d, max(q.id) AS m
    FROM ${sqliteRows('ci.client_id >= ? AND ci.client_id < ?')}`;
}

/** The SQLite statement of clientEntriesJson: ? the inbound and the emails as a JSON array. */
function sqliteEntriesSql(project: AttachedJsonProjection): string {
  const { client } = sqliteObjects(project);
  return `SELECT q.id AS id, q.email AS e, ${client} AS j, q.expiry_time < 0 AS d
    FROM ${sqliteRows('cl.email IN (SELECT value FROM json_each(?))')}`;
}

/** The rows both SQLite statements build from, as `q`, in client id order: the inbound (?) and `where`. */
const sqliteRows = (
  where: string,
) => `(SELECT cl.id, ci.inbound_id, cl.email, cl.sub_id, cl.uuid, cl.password, cl.auth, cl.flow, cl.security, cl.method,
        cl.total_bytes, cl.expiry_time, cl.enable, cl.limit_ip, cl.tg_id, cl.comment, cl.group_name, cl.reverse, cl.reset_days,
        cl.created_at, cl.updated_at, COALESCE(ct.enable, TRUE) AS t_enable, COALESCE(ct.up, 0) AS up, COALESCE(ct.down, 0) AS down,
        COALESCE(ct.last_online, 0) AS last_online
      FROM client_inbounds ci JOIN clients cl ON cl.id = ci.client_id LEFT JOIN client_traffics ct ON ct.email = cl.email
      WHERE ci.inbound_id = ? AND ${where} ORDER BY ci.client_id) q`;

/** The SQLite expressions of one client's `settings.clients` entry and `clientStats` entry over `q`. */
function sqliteObjects(project: AttachedJsonProjection): { client: string; stat: string } {
  // A field with a condition is present only when it holds.
  const str = (e: string) => e;
  const num = (e: string) => e;
  const bool = (e: string) => `json(CASE WHEN ${e} THEN 'true' ELSE 'false' END)`;
  type Field = [key: string, expr: string, when?: string];
  const obj = (fields: Field[]): string => {
    const build = (fs: Field[]) => `json_object(${fs.map(([key, expr]) => `'${key}', ${expr}`).join(', ')})`;
    const cond = fields.find((f) => f[2]);
    if (!cond) return build(fields);
    return `(CASE WHEN ${cond[2]} THEN ${build(fields)} ELSE ${build(fields.filter((f) => f !== cond))} END)`;
  };
  const flow = project.flowEligible ? str('q.flow') : `''`;
  const proto: Field[] = [];
  switch (project.protocol) {
    case 'vless':
      proto.push(['id', str('q.uuid')], ['flow', flow], ['reverse', 'json(q.reverse)', 'q.reverse IS NOT NULL']);
      break;
    case 'vmess':
      proto.push(
        ['id', str('q.uuid')],
        ['security', str(`(CASE WHEN q.security = '' THEN 'auto' ELSE q.security END)`)],
      );
      break;
    case 'trojan':
      proto.push(['password', str('q.password')], ['flow', flow]);
      break;
    case 'shadowsocks':
      proto.push(['password', str('q.password')], ['method', str('q.method'), `q.method <> ''`]);
      break;
    case 'hysteria':
    case 'hysteria2':
      proto.push(['auth', str('q.auth')]);
      break;
    default:
      break;
  }
  const client = obj([
    ['email', str('q.email')],
    ['enable', bool('q.enable')],
    ...proto,
    ['limitIp', num('q.limit_ip')],
    ['totalGB', num('q.total_bytes')],
    ['expiryTime', num('q.expiry_time')],
    ['tgId', num('q.tg_id')],
    ['subId', str('q.sub_id')],
    ['comment', str('q.comment')],
    ['reset', num('q.reset_days')],
    ['group', str('q.group_name')],
    ['created_at', num('q.created_at')],
    ['updated_at', num('q.updated_at')],
  ]);
  const stat = obj([
    ['id', num('q.id')],
    ['inboundId', num('q.inbound_id')],
    ['email', str('q.email')],
    ['enable', bool('q.t_enable')],
    ['up', num('q.up')],
    ['down', num('q.down')],
    ['total', num('q.total_bytes')],
    ['expiryTime', num('q.expiry_time')],
    ['reset', num('q.reset_days')],
    ['lastOnline', num('q.last_online')],
    ['uuid', str('q.uuid')],
    ['subId', str('q.sub_id')],
  ]);
  return { client, stat };
}

/**
 * The statement of one half (see pgAttachedJson): `c` the clients array text, `s` the stats, without brackets; `d`, `m`
 * as in Half.
 */
function pgAttachedSql(inboundId: number, project: AttachedJsonProjection, withClients: boolean): string {
  const { client, stat } = pgObjects(inboundId, project);
  return `SELECT ${withClients ? `string_agg(${client}, ',')` : 'NULL'} AS c, string_agg(${stat}, ',') AS s, bool_or(q.delayed) AS d, max(q.id) AS m
    FROM (SELECT client_id FROM client_inbounds WHERE inbound_id = $1 AND client_id >= $2::bigint AND client_id < $3::bigint ORDER BY client_id) ci,
    ${PG_CLIENT_ROW}`;
}

/** The statement of clientEntriesJson: $1 the inbound, $2 the emails as a JSON array; `e` is the email as JSON text. */
function pgEntriesSql(inboundId: number, project: AttachedJsonProjection): string {
  const { client } = pgObjects(inboundId, project);
  return `SELECT q.id, q.e, ${client} AS j, q.delayed AS d
    FROM (SELECT client_id FROM client_inbounds WHERE inbound_id = $1
      AND client_id IN (SELECT id FROM clients WHERE email IN (SELECT json_array_elements_text($2::json)))) ci,
    ${PG_CLIENT_ROW}`;
}

/**
 * One client's row (by primary key, its counters by email) as `q`, for each `ci.client_id`; the columns pgObjects uses.
 */
const PG_CLIENT_ROW = `LATERAL (SELECT cl.id, to_json(cl.email)::text AS e, to_json(cl.uuid)::text AS u, to_json(cl.sub_id)::text AS s,
        cl.total_bytes::text AS tot, cl.expiry_time::text AS exp, cl.reset_days::text AS rst, cl.enable, cl.password, cl.auth,
        cl.flow, cl.security, cl.method, cl.limit_ip, cl.tg_id, cl.comment, cl.group_name, cl.reverse, cl.created_at, cl.updated_at,
        COALESCE(ct.enable, TRUE) AS t_enable, COALESCE(ct.up, 0) AS up, COALESCE(ct.down, 0) AS down,
        COALESCE(ct.last_online, 0) AS last_online, cl.expiry_time < 0 AS delayed
      FROM clients cl LEFT JOIN client_traffics ct ON ct.email = cl.email WHERE cl.id = ci.client_id OFFSET 0) q`;

/** The PostgreSQL expressions of one client's `settings.clients` entry and `clientStats` entry over `q`. */
function pgObjects(inboundId: number, project: AttachedJsonProjection): { client: string; stat: string } {
  if (!Number.isSafeInteger(inboundId)) throw new Error(`inbound id ${inboundId}`);
  // A field's expr is SQL text that is already JSON (to_json for strings, ::text for numbers), or with kind 'b' a
  // boolean column, or with 'lit' constant JSON; a field with `when` is present only when that holds. Constant
  // text (labels, literals) is merged into one piece, and into the two branches of a boolean's CASE.
  type Field = [key: string, expr: string, kind?: 'b' | 'lit', when?: string];
  type Seg = { c: string } | { e: string } | { when: string; then: string; else: string };
  const sq = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const obj = (fields: Field[]): string => {
    const segs: Seg[] = [];
    const text = (t: string) => {
      const last = segs[segs.length - 1];
      if (last && 'c' in last) last.c += t;
      else if (last && 'when' in last) {
        last.then += t;
        last.else += t;
      } else segs.push({ c: t });
    };
    fields.forEach(([key, expr, kind, when], i) => {
      const label = `${i === 0 ? '{' : ','}"${key}":`;
      if (when) segs.push({ e: `(CASE WHEN ${when} THEN ${sq(label)} || ${expr} ELSE '' END)` });
      else if (kind === 'lit') text(label + expr);
      else if (kind === 'b') {
        const last = segs[segs.length - 1];
        const before = last && 'c' in last ? (segs.pop(), last.c) : '';
        segs.push({ when: expr, then: `${before}${label}true`, else: `${before}${label}false` });
      } else {
        text(label);
        segs.push({ e: expr });
      }
    });
    text('}');
    return segs
      .map((g) =>
        'c' in g ? sq(g.c) : 'e' in g ? g.e : `(CASE WHEN ${g.when} THEN ${sq(g.then)} ELSE ${sq(g.else)} END)`,
      )
      .join(' || ');
  };
  const str = (e: string) => `to_json(${e})::text`;
  const flow: Field = project.flowEligible ? ['flow', str('q.flow')] : ['flow', '""', 'lit'];
  const proto: Field[] = [];
  switch (project.protocol) {
    case 'vless':
      proto.push(['id', 'q.u'], flow, ['reverse', 'q.reverse', undefined, 'q.reverse IS NOT NULL']);
      break;
    case 'vmess':
      proto.push(['id', 'q.u'], ['security', str(`(CASE WHEN q.security = '' THEN 'auto' ELSE q.security END)`)]);
      break;
    case 'trojan':
      proto.push(['password', str('q.password')], flow);
      break;
    case 'shadowsocks':
      proto.push(['password', str('q.password')], ['method', str('q.method'), undefined, `q.method <> ''`]);
      break;
    case 'hysteria':
    case 'hysteria2':
      proto.push(['auth', str('q.auth')]);
      break;
    default:
      break;
  }
  const client = obj([
    ['email', 'q.e'],
    ['enable', 'q.enable', 'b'],
    ...proto,
    ['limitIp', 'q.limit_ip::text'],
    ['totalGB', 'q.tot'],
    ['expiryTime', 'q.exp'],
    ['tgId', 'q.tg_id::text'],
    ['subId', 'q.s'],
    ['comment', str('q.comment')],
    ['reset', 'q.rst'],
    ['group', str('q.group_name')],
    ['created_at', 'q.created_at::text'],
    ['updated_at', 'q.updated_at::text'],
  ]);
  const stat = obj([
    ['id', 'q.id::text'],
    ['inboundId', String(inboundId), 'lit'],
    ['email', 'q.e'],
    ['enable', 'q.t_enable', 'b'],
    ['up', 'q.up::text'],
    ['down', 'q.down::text'],
    ['total', 'q.tot'],
    ['expiryTime', 'q.exp'],
    ['reset', 'q.rst'],
    ['lastOnline', 'q.last_online::text'],
    ['uuid', 'q.u'],
    ['subId', 'q.s'],
  ]);
  return { client, stat };
}
