// Traffic accounting and enforcement storage: batched, set-based statements written once for both dialects.
// A tick of 100,000 counters is a handful of statements with no bind-parameter limits to chunk around.
import { eq, lt, sql, type SQL } from 'drizzle-orm';
import type { EnforcementResult, OutboundTrafficRow, TrafficRepo } from '../../domain/ports/traffic-repo.js';
import type { SeenIp } from '../../domain/traffic/ip-limit.js';
import type { Conn } from '../conn.js';

// Row lists travel as few parameters whatever their length: on SQLite one JSON array of rows read with
// json_each; on PostgreSQL one array literal per column read with unnest.

export type Column = { type: 'text'; values: readonly string[] } | { type: 'int'; values: readonly number[] };

const NEEDS_ESCAPE = /[\\"]/;

function pgArray(col: Column): string {
  const parts: (string | number)[] = new Array(col.values.length);
  if (col.type === 'int') for (let i = 0; i < parts.length; i++) parts[i] = Math.trunc(col.values[i]!);
  else {
    for (let i = 0; i < parts.length; i++) {
      const v = col.values[i]!;
      parts[i] = NEEDS_ESCAPE.test(v) ? `"${v.replace(/[\\"]/g, '\\$&')}"` : `"${v}"`;
    }
  }
  return `{${parts.join(',')}}`;
}

/** `v` as a derived table with the given columns (all of the same length). */
export function rowsTable(c: Conn, cols: Record<string, Column>): SQL {
  const names = Object.keys(cols);
  if (c.dialect === 'pg') {
    const arrays = names.map(
      (n) => sql`${pgArray(cols[n]!)}::${sql.raw(cols[n]!.type === 'int' ? 'bigint[]' : 'text[]')}`,
    );
    return sql`unnest(${sql.join(arrays, sql`, `)}) AS v(${sql.raw(names.join(', '))})`;
  }
  // One native JSON.stringify over row tuples (a tick can carry 100,000 rows; building the text piece by piece
  // in JS took 2-4x longer).
  const length = cols[names[0]!]!.values.length;
  const columns = names.map((n) => cols[n]!);
  const rows: (string | number)[][] = new Array(length);
  for (let i = 0; i < length; i++) {
    const row: (string | number)[] = [];
    for (const col of columns) row.push(col.type === 'int' ? Math.trunc(col.values[i]!) : col.values[i]!);
    rows[i] = row;
  }
  const json = JSON.stringify(rows);
  const sel = names.map((n, i) => `value->>${i} AS ${n}`).join(', ');
  return sql`(SELECT ${sql.raw(sel)} FROM json_each(${json})) AS v`;
}

/** A list of strings as a subquery of its elements (for `IN (...)`). */
export function listQuery(c: Conn, values: readonly string[]): SQL {
  return c.dialect === 'pg'
    ? sql`SELECT unnest(${pgArray({ type: 'text', values })}::text[])`
    : sql`SELECT value FROM json_each(${JSON.stringify(values)})`;
}

/** An integer parameter typed as such on both dialects. */
export const int = (c: Conn, v: number): SQL =>
  c.dialect === 'pg' ? sql`${Math.trunc(v)}::bigint` : sql`CAST(${Math.trunc(v)} AS INTEGER)`;

const str = (r: Record<string, unknown>, k: string) => String(r[k]);
const num = (r: Record<string, unknown>, k: string) => Number(r[k]);

export function trafficRepo(c: Conn): TrafficRepo {
  return {
    async applyDeltas(d, nowMs) {
      if (d.clients.length === 0 && d.inbounds.length === 0 && d.outbounds.length === 0) return;
      const nowSec = Math.floor(nowMs / 1000);
      const counters = (rows: readonly { up: number; down: number }[], keys: string[]) => ({
        e: { type: 'text', values: keys } as Column,
        u: { type: 'int', values: rows.map((r) => r.up) } as Column,
        d: { type: 'int', values: rows.map((r) => r.down) } as Column,
      });
      await c.tx(async (tx) => {
        if (tx.dialect === 'pg') {
          // This transaction only: its commit does not wait for the WAL flush (a crash of PostgreSQL can lose at
          // most the last few hundred milliseconds of committed ticks — moved bytes not counted, never counted
          // twice, never corruption), and the join of 100k counter rows hashes in memory instead of in batches.
          await tx.exec(sql`SET LOCAL synchronous_commit = off`);
          await tx.exec(sql`SET LOCAL work_mem = '32MB'`);
        }
        if (d.clients.length > 0) {
          const v = rowsTable(
            tx,
            counters(
              d.clients,
              d.clients.map((r) => r.email),
            ),
          );
          await tx.exec(sql`UPDATE client_traffics
            SET up = client_traffics.up + v.u, down = client_traffics.down + v.d, last_online = ${int(tx, nowSec)}
            FROM ${v} WHERE client_traffics.email = v.e`);
          // Delayed start: the first tick in which the client moved (lastOnline just set to now) turns -duration
          // into now + duration. Driven by the expiry index: costs nothing when no client waits to start.
          await tx.exec(sql`UPDATE clients SET expiry_time = ${int(tx, nowMs)} - expiry_time, updated_at = ${int(tx, nowMs)}
            WHERE expiry_time < 0
              AND EXISTS (SELECT 1 FROM client_traffics t WHERE t.email = clients.email AND t.last_online = ${int(tx, nowSec)})`);
        }
        if (d.inbounds.length > 0) {
          const v = rowsTable(
            tx,
            counters(
              d.inbounds,
              d.inbounds.map((r) => r.tag),
            ),
          );
          await tx.exec(sql`UPDATE inbounds SET up = inbounds.up + v.u, down = inbounds.down + v.d
            FROM ${v} WHERE inbounds.tag = v.e`);
        }
        if (d.outbounds.length > 0) {
          const v = rowsTable(
            tx,
            counters(
              d.outbounds,
              d.outbounds.map((r) => r.tag),
            ),
          );
          await tx.exec(sql`INSERT INTO outbound_traffics (tag, up, down) SELECT v.e, v.u, v.d FROM ${v} WHERE true
            ON CONFLICT (tag) DO UPDATE SET up = outbound_traffics.up + excluded.up, down = outbound_traffics.down + excluded.down`);
        }
      });
    },

    async enforce(nowMs, quotaScope = 'all'): Promise<EnforcementResult> {
      const now = (x: Conn) => int(x, nowMs);
      return c.tx(async (tx) => {
        // Auto-renew: expiry moved forward by whole periods past now (expiry index range).
        const renewedRows = await tx.all<Record<string, unknown>>(sql`UPDATE clients
          SET expiry_time = expiry_time + ((${now(tx)} - expiry_time) / (reset_days * 86400000) + 1) * (reset_days * 86400000),
              updated_at = ${now(tx)}
          WHERE expiry_time > 0 AND expiry_time <= ${now(tx)} AND reset_days > 0
          RETURNING email`);
        const renewed = renewedRows.map((r) => str(r, 'email'));
        if (renewed.length > 0) {
          // Re-enable the depleted ones (operator-disabled clients stay disabled), then zero the counters.
          await tx.exec(sql`UPDATE clients SET enable = true
            WHERE enable = false AND email IN (${listQuery(tx, renewed)})
              AND EXISTS (SELECT 1 FROM client_traffics t WHERE t.email = clients.email AND t.enable = false)`);
          await tx.exec(
            sql`UPDATE client_traffics SET up = 0, down = 0, enable = true WHERE email IN (${listQuery(tx, renewed)})`,
          );
        }
        // Depletion by expiry (exactly now counts): expiry index range.
        const expired = await tx.all<
          Record<string, unknown>
        >(sql`UPDATE clients SET enable = false, updated_at = ${now(tx)}
          WHERE expiry_time > 0 AND expiry_time <= ${now(tx)} AND enable = true
          RETURNING email`);
        // Depletion by quota (exactly used counts): every client, or only those whose counters just moved.
        let overQuota: Record<string, unknown>[] = [];
        if (quotaScope === 'all') {
          overQuota = await tx.all(sql`UPDATE clients SET enable = false, updated_at = ${now(tx)}
            FROM client_traffics t
            WHERE t.email = clients.email AND clients.enable = true AND clients.total_bytes > 0
              AND t.up + t.down >= clients.total_bytes
            RETURNING clients.email`);
        } else if (quotaScope.length > 0) {
          const m = rowsTable(tx, { e: { type: 'text', values: quotaScope } });
          overQuota = await tx.all(sql`UPDATE clients SET enable = false, updated_at = ${now(tx)}
            FROM ${m}, client_traffics t
            WHERE clients.email = v.e AND t.email = v.e AND clients.enable = true AND clients.total_bytes > 0
              AND t.up + t.down >= clients.total_bytes
            RETURNING clients.email`);
        }
        const depleted = [...new Set([...expired, ...overQuota].map((r) => str(r, 'email')))];
        if (depleted.length > 0) {
          await tx.exec(sql`UPDATE client_traffics SET enable = false WHERE email IN (${listQuery(tx, depleted)})`);
        }
        const inboundRows = await tx.all<Record<string, unknown>>(sql`UPDATE inbounds SET enable = false
          WHERE enable = true AND ((total > 0 AND up + down >= total) OR (expiry_time > 0 AND expiry_time <= ${now(tx)}))
          RETURNING id`);
        return { renewed, depleted, inboundsDisabled: inboundRows.map((r) => num(r, 'id')).sort((a, b) => a - b) };
      });
    },

    async outbounds(): Promise<OutboundTrafficRow[]> {
      const rows = await c.all<Record<string, unknown>>(sql`SELECT tag, up, down FROM outbound_traffics ORDER BY tag`);
      return rows.map((r) => {
        const up = num(r, 'up');
        const down = num(r, 'down');
        return { tag: str(r, 'tag'), up, down, total: up + down };
      });
    },

    async resetOutbounds(tag) {
      const { outboundTraffics: o } = c.t;
      const res = await c.write((db) =>
        tag === 'all'
          ? db.update(o).set({ up: 0, down: 0 })
          : db.update(o).set({ up: 0, down: 0 }).where(eq(o.tag, tag)),
      );
      return c.affected(res);
    },

    async recordIps(seen, nowSec) {
      if (seen.length === 0) return;
      const unique = new Map<string, { e: string; i: string }>();
      for (const s of seen) unique.set(`${s.email}\n${s.ip}`, { e: s.email, i: s.ip });
      const list = [...unique.values()];
      const v = rowsTable(c, {
        e: { type: 'text', values: list.map((r) => r.e) },
        i: { type: 'text', values: list.map((r) => r.i) },
      });
      await c.exec(sql`INSERT INTO client_ips (email, ip, last_seen)
        SELECT v.e, v.i, ${int(c, nowSec)} FROM ${v} WHERE EXISTS (SELECT 1 FROM clients WHERE clients.email = v.e)
        ON CONFLICT (email, ip) DO UPDATE SET last_seen = excluded.last_seen`);
    },

    async ipLimits(emails) {
      const out = new Map<string, number>();
      if (emails.length === 0) return out;
      const rows = await c.all<Record<string, unknown>>(sql`SELECT email, limit_ip FROM clients
        WHERE limit_ip > 0 AND email IN (${listQuery(c, emails)})`);
      for (const r of rows) out.set(str(r, 'email'), num(r, 'limit_ip'));
      return out;
    },

    async ipsOf(emails) {
      const out = new Map<string, SeenIp[]>();
      if (emails.length === 0) return out;
      const rows = await c.all<Record<string, unknown>>(sql`SELECT email, ip, last_seen FROM client_ips
        WHERE email IN (${listQuery(c, emails)}) ORDER BY email, last_seen, ip`);
      for (const r of rows) {
        const email = str(r, 'email');
        let list = out.get(email);
        if (!list) out.set(email, (list = []));
        list.push({ ip: str(r, 'ip'), lastSeen: num(r, 'last_seen') });
      }
      return out;
    },

    async pruneIps(beforeSec) {
      const { clientIps } = c.t;
      const res = await c.write((db) => db.delete(clientIps).where(lt(clientIps.lastSeen, beforeSec)));
      return c.affected(res);
    },
  };
}
