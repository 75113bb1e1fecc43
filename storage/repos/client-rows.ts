// A client's row as both dialects store it, and the statements other repositories share with the clients repository:
// column decoding, the raw multi-row insert of bulkCreate, and id/key chunking.
import { sql, type SQL } from 'drizzle-orm';
import type { NewClient } from '../../domain/ports/clients-repo.js';
import type { ClientRecord, ClientWrite, StoredClientRow } from '../../domain/clients/model.js';
import type { Conn } from '../conn.js';
import { placeholders, raw } from './raw.js';

export const chunk = <T>(items: T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** Rows per multi-row INSERT of clients (20 columns → 10,000 bind parameters, under both dialects' limits). */
const CLIENT_CHUNK = 500;
/** Keys per IN (…) list or multi-row key insert. */
export const KEY_CHUNK = 2000;
/** A numeric column as the driver returns it (number, bigint, string or null) as a number. */
export const toNumber = (v: unknown): number => Number(v ?? 0);
/** A boolean column as either dialect returns it (SQLite 0/1, PostgreSQL true or 't'). */
export const toBool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't' || v === 'true';

/**
 * A client's own 20 columns read positionally from `r` at `at`, in the order the raw client statements select
 * them: id, email, sub_id, uuid, password, auth, flow, security, method, total_bytes, expiry_time, enable, limit_ip,
 * tg_id, comment, group_name, reverse, reset_days, created_at, updated_at.
 */
export function clientColumns(r: unknown[], at: number) {
  const v = (i: number) => r[at + i];
  return {
    id: toNumber(v(0)),
    email: v(1) as string,
    subId: v(2) as string,
    uuid: v(3) as string,
    password: v(4) as string,
    auth: v(5) as string,
    flow: v(6) as string,
    security: v(7) as string,
    method: v(8) as string,
    totalGB: toNumber(v(9)),
    expiryTime: toNumber(v(10)),
    enable: toBool(v(11)),
    limitIp: toNumber(v(12)),
    tgId: toNumber(v(13)),
    comment: v(14) as string,
    group: v(15) as string,
    reverse: parseReverse(v(16) as string | null),
    reset: toNumber(v(17)),
    createdAt: toNumber(v(18)),
    updatedAt: toNumber(v(19)),
  };
}

export type ClientRow = StoredClientRow;

export function parseReverse(text: string | null): { tag: string } | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text);
    return v && typeof v.tag === 'string' && v.tag !== '' ? { tag: v.tag } : null;
  } catch {
    return null;
  }
}

export const toClient = (r: ClientRow): ClientRecord => ({ ...r, reverse: parseReverse(r.reverse) });

export const toRow = (w: ClientWrite) => ({
  ...w,
  reverse: w.reverse && w.reverse.tag ? JSON.stringify({ tag: w.reverse.tag }) : null,
});

/**
 * Inserts clients with attachments and counter rows inside the caller's transaction. Emails already taken are
 * skipped (ON CONFLICT DO NOTHING), so a concurrent insert of the same email can never produce two rows.
 */
export const CLIENT_COLS = [
  'email',
  'sub_id',
  'uuid',
  'password',
  'auth',
  'flow',
  'security',
  'method',
  'total_bytes',
  'expiry_time',
  'enable',
  'limit_ip',
  'tg_id',
  'comment',
  'group_name',
  'reverse',
  'reset_days',
  'created_at',
  'updated_at',
];

/** A client's values in CLIENT_COLS order, for the raw statements. */
export const rowArgs = (w: ClientWrite): unknown[] => {
  const r = toRow(w);
  return [
    r.email,
    r.subId,
    r.uuid,
    r.password,
    r.auth,
    r.flow,
    r.security,
    r.method,
    r.totalGB,
    r.expiryTime,
    r.enable,
    r.limitIp,
    r.tgId,
    r.comment,
    r.group,
    r.reverse,
    r.reset,
    r.createdAt,
    r.updatedAt,
  ];
};

/** `col = ?, …` over CLIENT_COLS. */
export const SET_ALL = CLIENT_COLS.map((col) => `${col} = ?`).join(', ');

/**
 * Inserts clients with attachments and counter rows inside the caller's transaction. Emails already taken are
 * skipped (ON CONFLICT DO NOTHING), so a concurrent insert of the same email can never produce two rows.
 * Raw multi-row statements: this is the 10,000-client bulkCreate path.
 */
export async function insertClientsTx(
  tx: Conn,
  items: NewClient[],
): Promise<{ created: Map<string, number>; taken: string[] }> {
  const created = new Map<string, number>();
  for (const part of chunk(items, CLIENT_CHUNK)) {
    const args: unknown[] = [];
    for (const { row: w } of part) args.push(...rowArgs(w));
    const rows = await raw<{ id: unknown; email: string }>(
      tx,
      `INSERT INTO clients (${CLIENT_COLS.join(', ')}) VALUES ${placeholders(part.length, CLIENT_COLS.length)}
       ON CONFLICT (email) DO NOTHING RETURNING id, email`,
      args,
    );
    for (const r of rows) created.set(r.email, Number(r.id));
  }
  const taken = items.filter((i) => !created.has(i.row.email)).map((i) => i.row.email);
  const links: number[] = [];
  for (const i of items) {
    const id = created.get(i.row.email);
    if (id === undefined) continue;
    for (const inboundId of new Set(i.inboundIds)) links.push(id, inboundId);
  }
  const LINK_ROWS = KEY_CHUNK * 2;
  for (let k = 0; k < links.length; k += LINK_ROWS * 2) {
    const part = links.slice(k, k + LINK_ROWS * 2);
    await raw(
      tx,
      `INSERT INTO client_inbounds (client_id, inbound_id) VALUES ${placeholders(part.length / 2, 2)} ON CONFLICT DO NOTHING`,
      part,
    );
  }
  const emails = [...created.keys()];
  for (const part of chunk(emails, KEY_CHUNK)) {
    // Counters kept from an earlier client of the same email (keepTraffic) survive; the auto-disable flag is cleared.
    await raw(
      tx,
      `INSERT INTO client_traffics (email) VALUES ${placeholders(part.length, 1)}
      ON CONFLICT (email) DO UPDATE SET enable = TRUE`,
      part,
    );
    await raw(tx, `DELETE FROM client_tombstones WHERE email IN (${part.map(() => '?').join(',')})`, part);
  }
  return { created, taken };
}

/** A column of many rows as one JSON array (see raw.ts jsonRows for why). */
export async function jsonColumn<T = string>(c: Conn, expr: SQL, from: SQL, where: SQL, orderBy: SQL): Promise<T[]> {
  const q =
    c.dialect === 'sqlite'
      ? sql`SELECT json_group_array(v) AS j FROM (SELECT ${expr} AS v FROM ${from} WHERE ${where} ORDER BY ${orderBy})`
      : sql`SELECT COALESCE(json_agg(${expr} ORDER BY ${orderBy}), '[]'::json)::text AS j FROM ${from} WHERE ${where}`;
  const [row] = await c.all<{ j: string }>(q);
  return row?.j ? (JSON.parse(row.j) as T[]) : [];
}
