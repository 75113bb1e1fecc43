// Clients: one row per client, attachments in client_inbounds, counters in client_traffics (keyed by email).
// The paged list searches, filters and sorts the in-memory catalog (domain/clients/catalog.ts); this repository reads
// the catalog's rows (by email, or in id batches) and the page's rows by id.
import { and, asc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { ClientsRepo } from '../../domain/ports/clients-repo.js';
import type {
  BucketParams,
  ClientDetail,
  ClientRecord,
  ClientListRow,
  ClientTrafficView,
} from '../../domain/clients/model.js';
import type { CatalogRow } from '../../domain/clients/catalog.js';
import type { Conn } from '../conn.js';
import { isUniqueViolation } from './errors.js';
import { jsonRows, placeholders, raw } from './raw.js';
import {
  CLIENT_COLS,
  KEY_CHUNK,
  SET_ALL,
  chunk,
  clientColumns,
  insertClientsTx,
  jsonColumn,
  rowArgs,
  toBool,
  toClient,
  toNumber,
} from './client-rows.js';

/**
 * Client ids per catalogBatch() read. SQLite reads run on the event loop: small batches, so a request waits at most
 * one short batch. PostgreSQL reads run in its own process, and each batch scans the counters once for its join.
 */
const CATALOG_BATCH_IDS = { sqlite: 2_000, pg: 10_000 } as const;

// ---- the status predicates in SQL (mirrors domain/clients/rules.ts) -------------------------------------------------

const USED = sql.raw('(COALESCE(ct.up, 0) + COALESCE(ct.down, 0))');
const FROM = sql.raw('clients c LEFT JOIN client_traffics ct ON ct.email = c.email');

/** delDepleted's predicate (mirrors deletableWhenDepleted in domain/clients/rules.ts; the handler suite pins both). */
function deletable(p: BucketParams): SQL {
  const depleted = sql`((NOT c.enable AND NOT COALESCE(ct.enable, TRUE)) OR (c.total_bytes > 0 AND ${USED} >= c.total_bytes) OR (c.expiry_time > 0 AND c.expiry_time <= ${p.now}))`;
  return sql`((c.expiry_time > 0 AND c.expiry_time <= ${p.now}) OR (c.reset_days = 0 AND ${depleted}))`;
}

/** The catalog's columns (CatalogRow order, attachments apart). */
const CATALOG_COLS = [
  'c.id',
  'c.email',
  'c.sub_id',
  'c.comment',
  'c.group_name',
  'c.enable',
  'c.total_bytes',
  'c.expiry_time',
  'COALESCE(ct.up, 0) + COALESCE(ct.down, 0)',
  'COALESCE(ct.enable, TRUE)',
  'COALESCE(ct.last_online, 0)',
];

/** [client_id, inbound_id] pairs as client id → inbound ids (in the pairs' order). */
function byClient(links: unknown[][]): Map<number, number[]> {
  const att = new Map<number, number[]>();
  for (const [cid, iid] of links) {
    let list = att.get(toNumber(cid));
    if (!list) att.set(toNumber(cid), (list = []));
    list.push(toNumber(iid));
  }
  return att;
}

export function clientsRepo(c: Conn): ClientsRepo {
  const { clients, clientInbounds, clientTraffics, clientTombstones, clientIps } = c.t;

  async function attachmentsOf(ids: number[]): Promise<Map<number, number[]>> {
    const map = new Map<number, number[]>();
    for (const part of chunk(ids, KEY_CHUNK)) {
      const rows = await c.db
        .select()
        .from(clientInbounds)
        .where(inArray(clientInbounds.clientId, part))
        .orderBy(asc(clientInbounds.clientId), asc(clientInbounds.inboundId));
      for (const r of rows) {
        let list = map.get(r.clientId);
        if (!list) map.set(r.clientId, (list = []));
        list.push(r.inboundId);
      }
    }
    return map;
  }

  async function trafficOf(emails: string[]): Promise<Map<string, ClientTrafficView>> {
    const map = new Map<string, ClientTrafficView>();
    for (const part of chunk(emails, KEY_CHUNK)) {
      const rows = await c.db.select().from(clientTraffics).where(inArray(clientTraffics.email, part));
      for (const r of rows) map.set(r.email, { up: r.up, down: r.down, enable: r.enable, lastOnline: r.lastOnline });
    }
    return map;
  }

  const noTraffic = (): ClientTrafficView => ({ up: 0, down: 0, enable: true, lastOnline: 0 });

  async function withDetails(rows: ClientRecord[]): Promise<ClientDetail[]> {
    const att = await attachmentsOf(rows.map((r) => r.id));
    const tr = await trafficOf(rows.map((r) => r.email));
    return rows.map((r) => ({ ...r, inboundIds: att.get(r.id) ?? [], traffic: tr.get(r.email) ?? noTraffic() }));
  }

  /** Slim rows for a page of ids, in the given order. */
  async function slimRows(ids: number[]): Promise<ClientListRow[]> {
    if (ids.length === 0) return [];
    const rows = (await c.db.select().from(clients).where(inArray(clients.id, ids))).map(toClient);
    const full = await withDetails(rows);
    const byId = new Map(full.map((f) => [f.id, f]));
    return ids
      .map((id) => byId.get(id))
      .filter((f): f is ClientDetail => !!f)
      .map((f) => ({
        email: f.email,
        subId: f.subId,
        enable: f.enable,
        totalGB: f.totalGB,
        expiryTime: f.expiryTime,
        limitIp: f.limitIp,
        reset: f.reset,
        comment: f.comment,
        group: f.group,
        inboundIds: f.inboundIds,
        traffic: f.traffic,
        createdAt: f.createdAt,
        updatedAt: f.updatedAt,
      }));
  }

  /** Catalog rows of the clients `where` selects (over `c`), with their attachments. */
  async function catalogRead(where: string, args: unknown[]): Promise<CatalogRow[]> {
    const rows = await jsonRows(
      c,
      CATALOG_COLS,
      `clients c LEFT JOIN client_traffics ct ON ct.email = c.email WHERE ${where}`,
      'c.id',
      args,
    );
    if (rows.length === 0) return [];
    const links = await jsonRows(
      c,
      ['ci.client_id', 'ci.inbound_id'],
      `client_inbounds ci JOIN clients c ON c.id = ci.client_id WHERE ${where}`,
      'ci.client_id, ci.inbound_id',
      args,
    );
    const att = byClient(links);
    return rows.map((r) => ({
      id: toNumber(r[0]),
      email: r[1] as string,
      subId: r[2] as string,
      comment: r[3] as string,
      group: r[4] as string,
      enable: toBool(r[5]),
      totalGB: toNumber(r[6]),
      expiryTime: toNumber(r[7]),
      used: toNumber(r[8]),
      trafficEnable: toBool(r[9]),
      lastOnline: toNumber(r[10]),
      inboundIds: att.get(toNumber(r[0])) ?? [],
    }));
  }

  const repo: ClientsRepo = {
    async byEmail(email) {
      const [row] = await c.db.select().from(clients).where(eq(clients.email, email));
      return row ? toClient(row) : null;
    },

    async byEmails(emails) {
      const out: ClientRecord[] = [];
      for (const part of chunk([...new Set(emails)], KEY_CHUNK)) {
        const rows = await c.db.select().from(clients).where(inArray(clients.email, part));
        out.push(...rows.map(toClient));
      }
      return out;
    },

    async detail(email) {
      const row = await repo.byEmail(email);
      return row ? (await withDetails([row]))[0]! : null;
    },

    async listDetails() {
      const rows = await jsonRows(
        c,
        [
          'c.id',
          'c.email',
          'c.sub_id',
          'c.uuid',
          'c.password',
          'c.auth',
          'c.flow',
          'c.security',
          'c.method',
          'c.total_bytes',
          'c.expiry_time',
          'c.enable',
          'c.limit_ip',
          'c.tg_id',
          'c.comment',
          'c.group_name',
          'c.reverse',
          'c.reset_days',
          'c.created_at',
          'c.updated_at',
          'ct.up',
          'ct.down',
          'ct.enable',
          'ct.last_online',
        ],
        'clients c LEFT JOIN client_traffics ct ON ct.email = c.email',
        'c.id',
      );
      const links = await jsonRows(c, ['client_id', 'inbound_id'], 'client_inbounds', 'client_id, inbound_id');
      const att = byClient(links);
      return rows.map((r) => ({
        ...clientColumns(r, 0),
        inboundIds: att.get(toNumber(r[0])) ?? [],
        traffic: {
          up: toNumber(r[20]),
          down: toNumber(r[21]),
          enable: r[22] === null || r[22] === undefined ? true : toBool(r[22]),
          lastOnline: toNumber(r[23]),
        },
      }));
    },

    async inboundIdsOf(clientId) {
      const rows = await c.db
        .select({ id: clientInbounds.inboundId })
        .from(clientInbounds)
        .where(eq(clientInbounds.clientId, clientId))
        .orderBy(asc(clientInbounds.inboundId));
      return rows.map((r) => r.id);
    },

    async insert(row, inboundIds) {
      if (c.dialect === 'pg') {
        // PostgreSQL: ONE statement (data-modifying CTEs commit together; the foreign keys are checked at its end),
        // no BEGIN/COMMIT round trips. No row back means the email is taken.
        const ids = [...new Set(inboundIds)];
        const links = ids.length
          ? `ci AS (INSERT INTO client_inbounds (client_id, inbound_id) SELECT i.id, v.x FROM i, (VALUES ${ids.map(() => '(?::integer)').join(',')}) v(x)
              ON CONFLICT DO NOTHING),`
          : '';
        const [created] = await raw<{ id: unknown }>(
          c,
          `WITH i AS (INSERT INTO clients (${CLIENT_COLS.join(', ')}) VALUES ${placeholders(1, CLIENT_COLS.length)}
            ON CONFLICT (email) DO NOTHING RETURNING id, email),
          ${links}
          ct AS (INSERT INTO client_traffics (email) SELECT email FROM i ON CONFLICT (email) DO UPDATE SET enable = TRUE),
          ts AS (DELETE FROM client_tombstones WHERE email IN (SELECT email FROM i))
          SELECT id FROM i`,
          [...rowArgs(row), ...ids],
        );
        return created ? { ...row, id: toNumber(created.id) } : null;
      }
      const res = await c.tx((tx) => insertClientsTx(tx, [{ row, inboundIds }]));
      const id = res.created.get(row.email);
      if (id === undefined) return null;
      return { ...row, id };
    },

    async insertMany(items) {
      if (items.length === 0) return { created: [], taken: [] };
      const res = await c.tx((tx) => insertClientsTx(tx, items));
      return { created: [...res.created.keys()], taken: res.taken };
    },

    async replace(id, oldEmail, row) {
      if (c.dialect === 'pg' && row.email === oldEmail) {
        // Same email on PostgreSQL: ONE statement (the row update and the counter upsert as a data-modifying CTE),
        // atomic without BEGIN/COMMIT round trips. No row from the CTE means the client is gone.
        const [t] = await raw<Record<string, unknown>>(
          c,
          `WITH u AS (UPDATE clients SET ${SET_ALL} WHERE id = ? RETURNING email)
          INSERT INTO client_traffics (email) SELECT email FROM u
          ON CONFLICT (email) DO UPDATE SET enable = CASE WHEN ? THEN TRUE ELSE client_traffics.enable END
          RETURNING up, down, enable, last_online`,
          [...rowArgs(row), id, row.enable],
        );
        if (!t) return { outcome: 'missing' as const };
        return {
          outcome: 'ok' as const,
          traffic: {
            up: toNumber(t.up),
            down: toNumber(t.down),
            enable: toBool(t.enable),
            lastOnline: toNumber(t.last_online),
          },
        };
      }
      try {
        return await c.tx(async (tx) => {
          const db = tx.db;
          if (row.email !== oldEmail) {
            const [other] = await db
              .select({ id: clients.id })
              .from(clients)
              .where(and(eq(clients.email, row.email), ne(clients.id, id)));
            if (other) return { outcome: 'email-taken' as const };
          }
          const res = await raw(tx, `UPDATE clients SET ${SET_ALL} WHERE id = ? RETURNING id`, [...rowArgs(row), id]);
          if (res.length === 0) return { outcome: 'missing' as const };
          if (row.email !== oldEmail) {
            // Counters and IPs follow the client; a stale kept row of the new email (deleted client) gives way.
            await db.delete(clientTraffics).where(eq(clientTraffics.email, row.email));
            await db.update(clientTraffics).set({ email: row.email }).where(eq(clientTraffics.email, oldEmail));
            await db.delete(clientIps).where(eq(clientIps.email, row.email));
            await db.update(clientIps).set({ email: row.email }).where(eq(clientIps.email, oldEmail));
            await db.delete(clientTombstones).where(eq(clientTombstones.email, row.email));
          }
          // Enabling by the operator also clears the auto-disable flag; one statement that returns the counters.
          const [t] = await raw<Record<string, unknown>>(
            tx,
            `INSERT INTO client_traffics (email) VALUES (?)
            ON CONFLICT (email) DO UPDATE SET enable = CASE WHEN ? THEN TRUE ELSE client_traffics.enable END
            RETURNING up, down, enable, last_online`,
            [row.email, row.enable],
          );
          return {
            outcome: 'ok' as const,
            traffic: {
              up: toNumber(t?.up),
              down: toNumber(t?.down),
              enable: t ? toBool(t.enable) : true,
              lastOnline: toNumber(t?.last_online),
            },
          };
        });
      } catch (err) {
        if (isUniqueViolation(err)) return { outcome: 'email-taken' as const };
        throw err;
      }
    },

    async remove(emails, keepTraffic, now) {
      if (emails.length === 0) return [];
      const unique = [...new Set(emails)];
      if (c.dialect === 'pg' && unique.length <= KEY_CHUNK) {
        // PostgreSQL: ONE statement (data-modifying CTEs share the snapshot and commit together), no BEGIN/COMMIT.
        const list = unique.map(() => '?').join(',');
        const rows = await raw<{ email: string }>(
          c,
          `WITH d AS (DELETE FROM clients WHERE email IN (${list}) RETURNING id, email),
          ci AS (DELETE FROM client_inbounds WHERE client_id IN (SELECT id FROM d)),
          ip AS (DELETE FROM client_ips WHERE email IN (SELECT email FROM d)),
          ${keepTraffic ? '' : 'tr AS (DELETE FROM client_traffics WHERE email IN (SELECT email FROM d)),'}
          ts AS (INSERT INTO client_tombstones (email, deleted_at) SELECT email, ?::bigint FROM d
            ON CONFLICT (email) DO UPDATE SET deleted_at = excluded.deleted_at)
          SELECT email FROM d`,
          [...unique, now],
        );
        const gone = new Set(rows.map((r) => r.email));
        return unique.filter((e) => gone.has(e)); // in the caller's order, whatever order the DELETE visited rows in
      }
      return c.tx(async (tx) => {
        const deleted: string[] = [];
        for (const part of chunk([...new Set(emails)], KEY_CHUNK)) {
          const rows = await tx.db
            .delete(clients)
            .where(inArray(clients.email, part))
            .returning({ id: clients.id, email: clients.email });
          if (rows.length === 0) continue;
          const gone = rows.map((r) => r.email);
          deleted.push(...gone);
          await tx.db.delete(clientInbounds).where(
            inArray(
              clientInbounds.clientId,
              rows.map((r) => r.id),
            ),
          );
          await tx.db.delete(clientIps).where(inArray(clientIps.email, gone));
          if (!keepTraffic) await tx.db.delete(clientTraffics).where(inArray(clientTraffics.email, gone));
          await tx.db
            .insert(clientTombstones)
            .values(gone.map((email) => ({ email, deletedAt: now })))
            .onConflictDoUpdate({ target: clientTombstones.email, set: { deletedAt: now } });
        }
        const gone = new Set(deleted);
        return unique.filter((e) => gone.has(e));
      });
    },

    async attach(clientId, inboundIds) {
      if (inboundIds.length === 0) return 0;
      const res = await c.write((db) =>
        db
          .insert(clientInbounds)
          .values([...new Set(inboundIds)].map((inboundId) => ({ clientId, inboundId })))
          .onConflictDoNothing()
          .returning({ id: clientInbounds.inboundId }),
      );
      return res.length;
    },

    async detach(clientId, inboundIds) {
      if (inboundIds.length === 0) return 0;
      const res = await c.write((db) =>
        db
          .delete(clientInbounds)
          .where(and(eq(clientInbounds.clientId, clientId), inArray(clientInbounds.inboundId, inboundIds)))
          .returning({ id: clientInbounds.inboundId }),
      );
      return res.length;
    },

    async listRows(ids) {
      return slimRows(ids);
    },

    async catalogRows(emails) {
      const out: CatalogRow[] = [];
      for (const part of chunk([...new Set(emails)], KEY_CHUNK)) {
        out.push(...(await catalogRead(`c.email IN (${part.map(() => '?').join(',')})`, part)));
      }
      return out;
    },

    async catalogBatch(fromId) {
      const [m] = await c.all<{ m: unknown }>(sql`SELECT MAX(id) AS m FROM clients`);
      const toId = fromId + CATALOG_BATCH_IDS[c.dialect] - 1;
      const rows = await catalogRead('c.id >= ? AND c.id <= ?', [fromId, toId]);
      return { rows, next: toId < toNumber(m?.m) ? toId + 1 : null };
    },

    async deletableDepleted(p) {
      return jsonColumn(c, sql`c.email`, FROM, deletable(p), sql`c.id`);
    },

    async resetTraffic(emails) {
      return c.tx(async (tx) => {
        if (emails === 'all') {
          const [m] = await tx.all<{ n: unknown }>(
            sql`SELECT COUNT(*) AS n FROM client_traffics WHERE up <> 0 OR down <> 0 OR NOT enable`,
          );
          await raw(
            tx,
            'UPDATE clients SET enable = TRUE WHERE email IN (SELECT email FROM client_traffics WHERE NOT enable)',
          );
          await tx.db.update(clientTraffics).set({ up: 0, down: 0, enable: true });
          return { emails: [], moved: toNumber(m?.n) > 0 };
        }
        const found: string[] = [];
        let moved = false;
        for (const part of chunk([...new Set(emails)], KEY_CHUNK)) {
          const rows = await tx.db.select({ email: clients.email }).from(clients).where(inArray(clients.email, part));
          const present = rows.map((r) => r.email);
          if (present.length === 0) continue;
          found.push(...present);
          await tx.db
            .insert(clientTraffics)
            .values(present.map((email) => ({ email })))
            .onConflictDoNothing();
          const flagged = await tx.db
            .select({
              email: clientTraffics.email,
              up: clientTraffics.up,
              down: clientTraffics.down,
              enable: clientTraffics.enable,
            })
            .from(clientTraffics)
            .where(inArray(clientTraffics.email, present));
          if (flagged.some((f) => f.up !== 0 || f.down !== 0 || !f.enable)) moved = true;
          const disabled = flagged.filter((f) => !f.enable).map((f) => f.email);
          if (disabled.length)
            await tx.db.update(clients).set({ enable: true }).where(inArray(clients.email, disabled));
          await tx.db
            .update(clientTraffics)
            .set({ up: 0, down: 0, enable: true })
            .where(inArray(clientTraffics.email, present));
        }
        return { emails: found, moved };
      });
    },

    async setTraffic(email, up, down) {
      return c.tx(async (tx) => {
        const [row] = await tx.db.select({ id: clients.id }).from(clients).where(eq(clients.email, email));
        if (!row) return false;
        await tx.db
          .insert(clientTraffics)
          .values({ email, up, down })
          .onConflictDoUpdate({ target: clientTraffics.email, set: { up, down } });
        return true;
      });
    },

    async setLimits(rows, now) {
      if (rows.length === 0) return;
      await c.tx(async (tx) => {
        for (const r of rows) {
          await tx.db
            .update(clients)
            .set({ expiryTime: r.expiryTime, totalGB: r.totalGB, updatedAt: now })
            .where(eq(clients.id, r.id));
        }
        // Auto-disabled clients that the new limits no longer exhaust are re-enabled.
        for (const part of chunk(
          rows.map((r) => r.id),
          KEY_CHUNK,
        )) {
          const revived = await tx.all<{
            email: string;
          }>(sql`SELECT c.email AS email FROM clients c JOIN client_traffics ct ON ct.email = c.email
            WHERE c.id IN (${sql.join(
              part.map((id) => sql`${id}`),
              sql`, `,
            )}) AND NOT c.enable AND NOT ct.enable
            AND NOT ((c.total_bytes > 0 AND ct.up + ct.down >= c.total_bytes) OR (c.expiry_time > 0 AND c.expiry_time <= ${now}))`);
          const emails = revived.map((r) => r.email);
          if (emails.length === 0) continue;
          await tx.db.update(clients).set({ enable: true }).where(inArray(clients.email, emails));
          await tx.db.update(clientTraffics).set({ enable: true }).where(inArray(clientTraffics.email, emails));
        }
      });
    },

    async setGroup(emails, group, now) {
      if (emails.length === 0) return [];
      return c.tx(async (tx) => {
        const changed: string[] = [];
        for (const part of chunk([...new Set(emails)], KEY_CHUNK)) {
          const rows = await tx.db
            .update(clients)
            .set({ group, updatedAt: now })
            .where(and(inArray(clients.email, part), ne(clients.group, group)))
            .returning({ email: clients.email });
          changed.push(...rows.map((r) => r.email));
        }
        return changed;
      });
    },

    async onlines(since) {
      return jsonColumn(
        c,
        sql`ct.email`,
        sql`client_traffics ct JOIN clients c ON c.email = ct.email`,
        sql`ct.last_online >= ${since}`,
        sql`ct.email`,
      );
    },

    async lastOnline() {
      const pairs = await jsonRows(
        c,
        ['ct.email', 'ct.last_online'],
        'client_traffics ct JOIN clients c ON c.email = ct.email WHERE ct.last_online > 0',
        'ct.email',
      );
      return Object.fromEntries(pairs.map(([email, t]) => [String(email), Number(t)]));
    },

    async ips(email) {
      const rows = await c.db
        .select()
        .from(clientIps)
        .where(eq(clientIps.email, email))
        .orderBy(asc(clientIps.lastSeen), asc(clientIps.ip));
      return rows.map((r) => ({ ip: r.ip, lastSeen: r.lastSeen }));
    },

    async clearIps(email) {
      const rows = await c.write((db) =>
        db.delete(clientIps).where(eq(clientIps.email, email)).returning({ ip: clientIps.ip }),
      );
      return rows.length;
    },

    async traffic(email) {
      const rows = await c.all<
        Record<string, unknown>
      >(sql`SELECT c.email AS email, COALESCE(ct.up, 0) AS up, COALESCE(ct.down, 0) AS down,
        c.total_bytes AS total, c.expiry_time AS expiry FROM ${FROM} WHERE c.email = ${email}`);
      // A client deleted with keepTraffic leaves its counters behind: they stay readable (no quota, no expiry).
      const r =
        rows[0] ??
        (
          await c.all<Record<string, unknown>>(sql`SELECT email, up, down, 0 AS total, 0 AS expiry
        FROM client_traffics WHERE email = ${email}`)
        )[0];
      return r
        ? {
            email: String(r.email),
            up: toNumber(r.up),
            down: toNumber(r.down),
            total: toNumber(r.total),
            expiryTime: toNumber(r.expiry),
          }
        : null;
    },

    async isTombstoned(email) {
      const [row] = await c.db.select().from(clientTombstones).where(eq(clientTombstones.email, email));
      return !!row;
    },
  };
  return repo;
}
