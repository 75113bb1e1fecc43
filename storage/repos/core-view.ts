// The core's read of the database: enabled local inbounds, their enabled clients and the fallback rules, in
// three queries (no per-inbound or per-client round trips), plus the targeted reads of the live sync.
import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { CoreClient, CoreClientAttachments, CoreInbound, CoreViewRepo } from '../../domain/ports/core-view.js';
import type { Json, Protocol } from '../../domain/inbounds/model.js';
import type { Conn } from '../conn.js';

const CHUNK = 500;

function parseJson(v: unknown): Json {
  if (v && typeof v === 'object') return v as Json;
  if (typeof v !== 'string' || v === '') return {};
  try {
    const p = JSON.parse(v);
    return p && typeof p === 'object' && !Array.isArray(p) ? p : {};
  } catch {
    return {};
  }
}

function parseReverse(v: unknown): { tag: string } | null {
  const o = parseJson(v);
  return typeof o.tag === 'string' && o.tag ? { tag: o.tag } : null;
}

export function coreViewRepo(c: Conn): CoreViewRepo {
  const { inbounds, clients, clientInbounds, fallbacks } = c.t;
  const clientCols = {
    email: clients.email,
    uuid: clients.uuid,
    password: clients.password,
    auth: clients.auth,
    flow: clients.flow,
    security: clients.security,
    method: clients.method,
    reverse: clients.reverse,
    enable: clients.enable,
  };
  const toClient = (r: {
    email: string;
    uuid: string;
    password: string;
    auth: string;
    flow: string;
    security: string;
    method: string;
    reverse: unknown;
    enable: boolean;
  }): CoreClient => ({
    email: r.email,
    uuid: r.uuid,
    password: r.password,
    auth: r.auth,
    flow: r.flow,
    security: r.security,
    method: r.method,
    reverse: r.reverse ? parseReverse(r.reverse) : null,
    enable: !!r.enable,
  });
  return {
    async load() {
      const ibRows = await c.db
        .select()
        .from(inbounds)
        .where(and(eq(inbounds.enable, true), isNull(inbounds.nodeId)))
        .orderBy(asc(inbounds.id));
      const list: CoreInbound[] = ibRows.map((r) => ({
        id: r.id,
        tag: r.tag,
        protocol: r.protocol as Protocol,
        enable: !!r.enable,
        listen: r.listen,
        port: r.port,
        settings: parseJson(r.settings),
        streamSettings: parseJson(r.streamSettings),
        sniffing: parseJson(r.sniffing),
        nodeId: r.nodeId ?? null,
      }));
      const map = new Map<number, CoreClient[]>(list.map((ib) => [ib.id, []]));
      if (list.length > 0) {
        // Every (inbound, client) pair in client id order: the per-inbound lists come out in client id order
        // while the join runs along the primary keys with no sort (ordering by inbound first cost a sort of
        // 100k wide rows). On SQLite one row holding the pairs as JSON (libsql is slow at materialising 100k row
        // objects, JSON.parse of one text is fast); on PostgreSQL plain rows (postgres.js decodes rows faster
        // than the server builds 100k JSON arrays).
        const cols = sql`ci.inbound_id, c.email, c.uuid, c.password, c.auth, c.flow, c.security, c.method, c.reverse`;
        const add = (
          inboundId: unknown,
          email: string,
          uuid: string,
          password: string,
          auth: string,
          flow: string,
          security: string,
          method: string,
          reverse: string | null,
        ) => {
          map.get(Number(inboundId))?.push({
            email,
            uuid,
            password,
            auth,
            flow,
            security,
            method,
            reverse: reverse ? parseReverse(reverse) : null,
            enable: true,
          });
        };
        if (c.dialect === 'pg') {
          const rows = await c.all<{
            inbound_id: number;
            email: string;
            uuid: string;
            password: string;
            auth: string;
            flow: string;
            security: string;
            method: string;
            reverse: string | null;
          }>(
            sql`SELECT ${cols} FROM client_inbounds ci JOIN clients c ON c.id = ci.client_id JOIN inbounds i ON i.id = ci.inbound_id
              WHERE c.enable = true AND i.enable = true AND i.node_id IS NULL ORDER BY c.id, ci.inbound_id`,
          );
          for (const r of rows)
            add(r.inbound_id, r.email, r.uuid, r.password, r.auth, r.flow, r.security, r.method, r.reverse);
        } else {
          // CROSS JOIN pins the loop order (clients by rowid, then their attachments by the primary key index), so
          // SQLite needs no temporary b-tree for the ORDER BY whatever its statistics say.
          const [row] = await c.all<{ j: string | null }>(
            sql`SELECT json_group_array(json(x)) AS j FROM (SELECT json_array(${cols}) AS x
              FROM clients c CROSS JOIN client_inbounds ci ON ci.client_id = c.id JOIN inbounds i ON i.id = ci.inbound_id
              WHERE c.enable = 1 AND i.enable = 1 AND i.node_id IS NULL ORDER BY c.id, ci.inbound_id)`,
          );
          const pairs = (typeof row?.j === 'string' ? JSON.parse(row.j) : []) as Parameters<typeof add>[];
          for (const [inboundId, email, uuid, password, auth, flow, security, method, reverse] of pairs)
            add(inboundId, email, uuid, password, auth, flow, security, method, reverse);
        }
      }
      const fbRows = await c.db
        .select()
        .from(fallbacks)
        .orderBy(asc(fallbacks.masterId), asc(fallbacks.sortOrder), asc(fallbacks.id));
      return {
        inbounds: list,
        clients: map,
        fallbacks: fbRows.map((f) => ({
          masterId: f.masterId,
          childId: f.childId,
          name: f.name,
          alpn: f.alpn,
          path: f.path,
          xver: f.xver,
          sortOrder: f.sortOrder,
        })),
      };
    },

    async clientsByEmails(emails) {
      const out: CoreClientAttachments[] = [];
      const unique = [...new Set(emails)];
      for (let i = 0; i < unique.length; i += CHUNK) {
        const part = unique.slice(i, i + CHUNK);
        const rows = await c.db
          .select({ id: clients.id, ...clientCols })
          .from(clients)
          .where(inArray(clients.email, part));
        if (rows.length === 0) continue;
        const links = await c.db
          .select({ clientId: clientInbounds.clientId, inboundId: clientInbounds.inboundId })
          .from(clientInbounds)
          .where(
            inArray(
              clientInbounds.clientId,
              rows.map((r) => r.id),
            ),
          );
        const byClient = new Map<number, number[]>();
        for (const l of links) {
          const list = byClient.get(l.clientId) ?? [];
          list.push(l.inboundId);
          byClient.set(l.clientId, list);
        }
        for (const r of rows)
          out.push({ client: toClient(r), inboundIds: (byClient.get(r.id) ?? []).sort((a, b) => a - b) });
      }
      return out;
    },

    async inboundTags() {
      const rows = await c.db.select({ tag: inbounds.tag }).from(inbounds).orderBy(asc(inbounds.id));
      return rows.map((r) => r.tag);
    },

    async clientReverseTags() {
      const rows = await c.db
        .selectDistinct({ reverse: clients.reverse })
        .from(clients)
        .where(and(ne(clients.reverse, ''), ne(clients.reverse, 'null')));
      const tags = new Set<string>();
      for (const r of rows) {
        const t = parseReverse(r.reverse)?.tag;
        if (t) tags.add(t);
      }
      return [...tags].sort();
    },
  };
}
