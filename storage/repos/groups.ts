// Client groups: stored names (client_groups) merged with the labels clients carry (clients.group_name: indexed on
// SQLite; on PostgreSQL scanned, so that a rename is a HOT update, see the schema).
import { asc, eq, ne, sql } from 'drizzle-orm';
import type { GroupsRepo } from '../../domain/ports/groups-repo.js';
import { compareGroupNames, type GroupSummary } from '../../domain/clients/model.js';
import type { Conn } from '../conn.js';
import { jsonColumn } from './client-rows.js';

/**
 * Moves every client labelled `from` to `to`; returns their emails in id order. On PostgreSQL the update returns
 * them (one statement, one pass over the rows); SQLite reads them first (no RETURNING inside a subquery there).
 */
async function relabel(tx: Conn, from: string, to: string, now: number): Promise<string[]> {
  const { clients } = tx.t;
  if (tx.dialect === 'pg') {
    const [row] = await tx.all<{ j: string }>(sql`WITH u AS (UPDATE clients SET group_name = ${to}, updated_at = ${now}
      WHERE group_name = ${from} RETURNING id, email) SELECT COALESCE(json_agg(email ORDER BY id), '[]'::json)::text AS j FROM u`);
    return row?.j ? (JSON.parse(row.j) as string[]) : [];
  }
  const emails = await jsonColumn(tx, sql`email`, sql`clients`, sql`group_name = ${from}`, sql`id`);
  await tx.db.update(clients).set({ group: to, updatedAt: now }).where(eq(clients.group, from));
  return emails;
}

export function groupsRepo(c: Conn): GroupsRepo {
  const { clients, clientGroups } = c.t;

  const repo: GroupsRepo = {
    async list() {
      const counted = await c.db
        .select({ name: clients.group, count: sql<number>`COUNT(*)`.mapWith(Number) })
        .from(clients)
        .where(ne(clients.group, ''))
        .groupBy(clients.group);
      const stored = await c.db.select({ name: clientGroups.name }).from(clientGroups);
      const merged = new Map<string, number>();
      for (const s of stored) merged.set(s.name, 0);
      for (const g of counted) merged.set(g.name, g.count);
      const out: GroupSummary[] = [...merged].map(([name, clientCount]) => ({ name, clientCount }));
      return out.sort((a, b) => compareGroupNames(a.name, b.name));
    },
    async storedNames() {
      return (await c.db.select({ name: clientGroups.name }).from(clientGroups)).map((s) => s.name);
    },
    async exists(name) {
      const [s] = await c.db.select({ name: clientGroups.name }).from(clientGroups).where(eq(clientGroups.name, name));
      if (s) return true;
      const [u] = await c.db.select({ id: clients.id }).from(clients).where(eq(clients.group, name)).limit(1);
      return !!u;
    },
    async emails(name) {
      const rows = await c.db
        .select({ email: clients.email })
        .from(clients)
        .where(eq(clients.group, name))
        .orderBy(asc(clients.email));
      return rows.map((r) => r.email);
    },
    async create(name, now) {
      return c.tx(async (tx) => {
        const [u] = await tx.db.select({ id: clients.id }).from(clients).where(eq(clients.group, name)).limit(1);
        if (u) return false;
        const rows = await tx.db
          .insert(clientGroups)
          .values({ name, createdAt: now })
          .onConflictDoNothing()
          .returning({ name: clientGroups.name });
        return rows.length > 0;
      });
    },
    async ensure(name, now) {
      await c.write((db) => db.insert(clientGroups).values({ name, createdAt: now }).onConflictDoNothing());
    },
    async rename(oldName, newName, now) {
      return c.tx(async (tx) => {
        const emails = await relabel(tx, oldName, newName, now);
        const gone = await tx.db
          .delete(clientGroups)
          .where(eq(clientGroups.name, oldName))
          .returning({ name: clientGroups.name });
        if (gone.length)
          await tx.db.insert(clientGroups).values({ name: newName, createdAt: now }).onConflictDoNothing();
        return emails;
      });
    },
    async remove(name, now) {
      return c.tx(async (tx) => {
        const emails = await relabel(tx, name, '', now);
        await tx.db.delete(clientGroups).where(eq(clientGroups.name, name));
        return emails;
      });
    },
  };
  return repo;
}
