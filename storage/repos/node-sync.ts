// The node sync's storage: placements of local inbounds on nodes, counter baselines per (node, email) applied in
// the same transaction as the central counters, and node cpu/mem samples. Written once for both dialects.
import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import type { NodeSyncRepo } from '../../domain/ports/node-sync-repo.js';
import type { CounterMove } from '../../domain/clients/catalog.js';
import type { Conn } from '../conn.js';
import { int, listQuery, rowsTable } from './traffic.js';

export function nodeSyncRepo(c: Conn): NodeSyncRepo {
  const { nodeInbounds, nodeClientCounters, nodeSamples } = c.t;
  return {
    async placements(nodeId) {
      return c.db
        .select({
          inboundId: nodeInbounds.inboundId,
          remoteId: nodeInbounds.remoteId,
          remoteTag: nodeInbounds.remoteTag,
          pushedHash: nodeInbounds.pushedHash,
        })
        .from(nodeInbounds)
        .where(eq(nodeInbounds.nodeId, nodeId))
        .orderBy(asc(nodeInbounds.inboundId));
    },

    async savePlacement(nodeId, p) {
      await c.write((db) =>
        db
          .insert(nodeInbounds)
          .values({ nodeId, ...p })
          .onConflictDoUpdate({
            target: [nodeInbounds.nodeId, nodeInbounds.inboundId],
            set: { remoteId: p.remoteId, remoteTag: p.remoteTag, pushedHash: p.pushedHash },
          }),
      );
    },

    async dropPlacement(nodeId, inboundId) {
      await c.write((db) =>
        db.delete(nodeInbounds).where(and(eq(nodeInbounds.nodeId, nodeId), eq(nodeInbounds.inboundId, inboundId))),
      );
    },

    async baselines(nodeId) {
      const rows = await c.db
        .select({ email: nodeClientCounters.email, up: nodeClientCounters.up, down: nodeClientCounters.down })
        .from(nodeClientCounters)
        .where(eq(nodeClientCounters.nodeId, nodeId));
      return new Map(rows.map((r) => [r.email, { up: Number(r.up), down: Number(r.down) }]));
    },

    async applyCounters(nodeId, counters, lastOnline, nowMs) {
      const nowSec = Math.floor(nowMs / 1000);
      return c.tx(async (tx) => {
        // The baselines are read inside the transaction that moves them: a concurrent writer of the same node's
        // baselines (there is none by design: one pull per node at a time) could not make a byte count twice.
        const base = new Map<string, { up: number; down: number }>();
        const rows = await tx.all<Record<string, unknown>>(
          sql`SELECT email, up, down FROM node_client_counters WHERE node_id = ${nodeId}`,
        );
        for (const r of rows) base.set(String(r.email), { up: Number(r.up), down: Number(r.down) });
        const moves: CounterMove[] = [];
        const changed: { email: string; up: number; down: number }[] = [];
        for (const k of counters) {
          const b = base.get(k.email);
          const up = Math.max(0, Math.trunc(k.up));
          const down = Math.max(0, Math.trunc(k.down));
          // A counter below its baseline was reset on the node (core or panel reset): all of it is new.
          const du = b && up >= b.up ? up - b.up : up;
          const dd = b && down >= b.down ? down - b.down : down;
          if (du > 0 || dd > 0) moves.push({ email: k.email, up: du, down: dd });
          if (!b || b.up !== up || b.down !== down) changed.push({ email: k.email, up, down });
        }
        if (moves.length > 0) {
          const v = rowsTable(tx, {
            e: { type: 'text', values: moves.map((m) => m.email) },
            u: { type: 'int', values: moves.map((m) => m.up) },
            d: { type: 'int', values: moves.map((m) => m.down) },
          });
          await tx.exec(sql`UPDATE client_traffics
            SET up = client_traffics.up + v.u, down = client_traffics.down + v.d, last_online = ${int(tx, nowSec)}
            FROM ${v} WHERE client_traffics.email = v.e`);
          await tx.exec(sql`UPDATE clients SET expiry_time = ${int(tx, nowMs)} - expiry_time, updated_at = ${int(tx, nowMs)}
            WHERE expiry_time < 0
              AND EXISTS (SELECT 1 FROM client_traffics t WHERE t.email = clients.email AND t.last_online = ${int(tx, nowSec)})`);
        }
        const seen = [...lastOnline]
          .filter(([, t]) => t > 0)
          .map(([e, t]) => ({ e, t: Math.min(Math.trunc(t), nowSec) }));
        if (seen.length > 0) {
          const v = rowsTable(tx, {
            e: { type: 'text', values: seen.map((s) => s.e) },
            l: { type: 'int', values: seen.map((s) => s.t) },
          });
          await tx.exec(sql`UPDATE client_traffics SET last_online = v.l FROM ${v}
            WHERE client_traffics.email = v.e AND client_traffics.last_online < v.l`);
        }
        if (changed.length > 0) {
          const v = rowsTable(tx, {
            e: { type: 'text', values: changed.map((m) => m.email) },
            u: { type: 'int', values: changed.map((m) => m.up) },
            d: { type: 'int', values: changed.map((m) => m.down) },
          });
          await tx.exec(sql`INSERT INTO node_client_counters (node_id, email, up, down)
            SELECT ${int(tx, nodeId)}, v.e, v.u, v.d FROM ${v} WHERE true
            ON CONFLICT (node_id, email) DO UPDATE SET up = excluded.up, down = excluded.down`);
        }
        const reported = new Set(counters.map((k) => k.email));
        const gone = [...base.keys()].filter((e) => !reported.has(e));
        if (gone.length > 0) {
          await tx.exec(
            sql`DELETE FROM node_client_counters WHERE node_id = ${int(tx, nodeId)} AND email IN (${listQuery(tx, gone)})`,
          );
        }
        return moves;
      });
    },

    async resetBaselines(nodeId, emails) {
      if (emails !== 'all' && emails.length === 0) return;
      await c.exec(
        emails === 'all'
          ? sql`UPDATE node_client_counters SET up = 0, down = 0 WHERE node_id = ${int(c, nodeId)}`
          : sql`UPDATE node_client_counters SET up = 0, down = 0 WHERE node_id = ${int(c, nodeId)} AND email IN (${listQuery(c, emails)})`,
      );
    },

    async addSample(nodeId, s) {
      await c.write((db) =>
        db
          .insert(nodeSamples)
          .values({ nodeId, t: s.t, cpu: s.cpu, mem: s.mem })
          .onConflictDoUpdate({ target: [nodeSamples.nodeId, nodeSamples.t], set: { cpu: s.cpu, mem: s.mem } }),
      );
    },

    async samples(nodeId, sinceT) {
      const rows = await c.db
        .select({ t: nodeSamples.t, cpu: nodeSamples.cpu, mem: nodeSamples.mem })
        .from(nodeSamples)
        .where(and(eq(nodeSamples.nodeId, nodeId), gte(nodeSamples.t, sinceT)))
        .orderBy(asc(nodeSamples.t));
      return rows.map((r) => ({ t: Number(r.t), cpu: Number(r.cpu), mem: Number(r.mem) }));
    },

    async dropSamples(nodeId) {
      await c.write((db) => db.delete(nodeSamples).where(eq(nodeSamples.nodeId, nodeId)));
    },

    async pruneSamples(beforeT) {
      const res = await c.write((db) => db.delete(nodeSamples).where(lt(nodeSamples.t, beforeT)));
      return c.affected(res);
    },
  };
}
