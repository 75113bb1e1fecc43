// Remote nodes: records, cached health, and per-node roll-ups computed in SQL from inbounds.node_id.
import { and, asc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { NodeClientState, NodesRepo } from '../../domain/ports/nodes-repo.js';
import type { NodeRecord, NodeRollup, NodeStatus } from '../../domain/nodes/model.js';
import type { Conn } from '../conn.js';
import { chunk, toClient } from './client-rows.js';

const KEY_CHUNK = 2000;

type Row = Omit<NodeRecord, 'scheme' | 'status' | 'tlsMode'> & { scheme: string; status: string; tlsMode: string };

const toNode = (r: Row): NodeRecord => ({
  ...r,
  scheme: r.scheme === 'http' ? 'http' : 'https',
  tlsMode: r.tlsMode === 'pin' || r.tlsMode === 'skip' ? r.tlsMode : 'verify',
  status: (['unknown', 'online', 'offline', 'error'].includes(r.status) ? r.status : 'unknown') as NodeStatus,
  cpuPct: Number(r.cpuPct),
  memPct: Number(r.memPct),
});

export function nodesRepo(c: Conn): NodesRepo {
  const { nodes, inbounds, clients, clientInbounds, clientTombstones } = c.t;

  const repo: NodesRepo = {
    async list() {
      return (await c.db.select().from(nodes).orderBy(asc(nodes.id))).map(toNode);
    },

    async byId(id) {
      const [row] = await c.db.select().from(nodes).where(eq(nodes.id, id));
      return row ? toNode(row) : null;
    },

    async insert(w, now) {
      const [row] = await c.write((db) =>
        db
          .insert(nodes)
          .values({ ...w, createdAt: now, updatedAt: now })
          .returning(),
      );
      return toNode(row!);
    },

    async update(id, w, now, health) {
      const rows = await c.write((db) =>
        db
          .update(nodes)
          .set({ ...w, ...(health ?? {}), updatedAt: now })
          .where(eq(nodes.id, id))
          .returning(),
      );
      return rows[0] ? toNode(rows[0]) : null;
    },

    async remove(id) {
      const rows = await c.write((db) => db.delete(nodes).where(eq(nodes.id, id)).returning({ id: nodes.id }));
      return rows.length > 0;
    },

    async setEnable(id, enable, now) {
      const rows = await c.write((db) =>
        db.update(nodes).set({ enable, updatedAt: now }).where(eq(nodes.id, id)).returning({ id: nodes.id }),
      );
      return rows.length > 0;
    },

    async saveHealth(id, h) {
      const rows = await c.write((db) => db.update(nodes).set(h).where(eq(nodes.id, id)).returning({ id: nodes.id }));
      return rows.length > 0;
    },

    async rollups(onlineSince) {
      // Two grouped statements: inbounds per node, then the distinct (node, client) pairs joined once to the client
      // and its counters. "Depleted" follows the repository-wide convention: the client and its counters are both
      // disabled (auto-disabled by quota or expiry); "online" is the client bucket's (enabled, counters moved within
      // the online window).
      const [ibRows, clRows] = await Promise.all([
        c.all<{ node_id: unknown; n: unknown }>(sql`
          SELECT node_id, COUNT(*) AS n FROM inbounds WHERE node_id IS NOT NULL GROUP BY node_id`),
        c.all<{ node_id: unknown; clients: unknown; online: unknown; depleted: unknown }>(sql`
          SELECT x.node_id AS node_id,
                 COUNT(*) AS clients,
                 SUM(CASE WHEN cl.enable AND COALESCE(ct.last_online, 0) >= ${onlineSince} THEN 1 ELSE 0 END) AS online,
                 SUM(CASE WHEN NOT cl.enable AND NOT COALESCE(ct.enable, TRUE) THEN 1 ELSE 0 END) AS depleted
          FROM (SELECT DISTINCT ib.node_id AS node_id, ci.client_id AS client_id
                FROM inbounds ib JOIN client_inbounds ci ON ci.inbound_id = ib.id
                WHERE ib.node_id IS NOT NULL) x
          JOIN clients cl ON cl.id = x.client_id
          LEFT JOIN client_traffics ct ON ct.email = cl.email
          GROUP BY x.node_id`),
      ]);
      const out = new Map<number, NodeRollup>();
      for (const r of ibRows)
        out.set(Number(r.node_id), {
          inboundCount: Number(r.n ?? 0),
          clientCount: 0,
          onlineCount: 0,
          depletedCount: 0,
        });
      for (const r of clRows) {
        const o = out.get(Number(r.node_id));
        if (!o) continue;
        o.clientCount = Number(r.clients ?? 0);
        o.onlineCount = Number(r.online ?? 0);
        o.depletedCount = Number(r.depleted ?? 0);
      }
      return out;
    },

    async boundInbounds(nodeId) {
      return c.db
        .select({ id: inbounds.id, tag: inbounds.tag })
        .from(inbounds)
        .where(eq(inbounds.nodeId, nodeId))
        .orderBy(asc(inbounds.id));
    },

    async nodesWithInbounds() {
      const rows = await c.db
        .selectDistinct({ nodeId: inbounds.nodeId })
        .from(inbounds)
        .where(isNotNull(inbounds.nodeId));
      return rows.map((r) => Number(r.nodeId)).sort((a, b) => a - b);
    },

    async clientStates(nodeId, emails) {
      const out = new Map<string, NodeClientState>();
      for (const part of chunk([...new Set(emails)], KEY_CHUNK)) {
        const rows = (await c.db.select().from(clients).where(inArray(clients.email, part))).map(toClient);
        if (rows.length === 0) continue;
        const byId = new Map(rows.map((r) => [r.id, r]));
        for (const r of rows) out.set(r.email, { client: r, inbounds: [] });
        const links = await c.db
          .select({ clientId: clientInbounds.clientId, id: inbounds.id, tag: inbounds.tag })
          .from(clientInbounds)
          .innerJoin(inbounds, eq(inbounds.id, clientInbounds.inboundId))
          .where(and(eq(inbounds.nodeId, nodeId), inArray(clientInbounds.clientId, [...byId.keys()])))
          .orderBy(asc(inbounds.id));
        for (const l of links) out.get(byId.get(l.clientId)!.email)!.inbounds.push({ id: l.id, tag: l.tag });
      }
      return out;
    },

    async emailsOnNode(nodeId) {
      const rows = await c.db
        .selectDistinct({ email: clients.email })
        .from(clients)
        .innerJoin(clientInbounds, eq(clientInbounds.clientId, clients.id))
        .innerJoin(inbounds, eq(inbounds.id, clientInbounds.inboundId))
        .where(eq(inbounds.nodeId, nodeId));
      return rows.map((r) => r.email).sort();
    },

    async tombstoned(emails) {
      const out = new Set<string>();
      for (const part of chunk([...new Set(emails)], KEY_CHUNK)) {
        const rows = await c.db
          .select({ email: clientTombstones.email })
          .from(clientTombstones)
          .where(inArray(clientTombstones.email, part));
        for (const r of rows) out.add(r.email);
      }
      return out;
    },
  };
  return repo;
}
