// Custom geo sources: one row per (type, alias), unique index custom_geo_type_alias_idx.
import { asc, eq } from 'drizzle-orm';
import type { GeoRepo } from '../../domain/ports/geo-repo.js';
import type { GeoRecord, GeoType } from '../../domain/geo/model.js';
import type { Conn } from '../conn.js';
import { isUniqueViolation } from './errors.js';

const toGeo = (r: {
  id: number;
  type: string;
  alias: string;
  url: string;
  status: string;
  lastDownload: number;
}): GeoRecord => ({
  ...r,
  type: (r.type === 'geosite' ? 'geosite' : 'geoip') as GeoType,
  lastDownload: Number(r.lastDownload),
});

export function geoRepo(c: Conn): GeoRepo {
  const { customGeo } = c.t;
  return {
    async list() {
      return (await c.db.select().from(customGeo).orderBy(asc(customGeo.id))).map(toGeo);
    },
    async byId(id) {
      const [row] = await c.db.select().from(customGeo).where(eq(customGeo.id, id));
      return row ? toGeo(row) : null;
    },
    async insert(w) {
      try {
        const [row] = await c.write((db) => db.insert(customGeo).values(w).returning());
        return toGeo(row!);
      } catch (err) {
        if (isUniqueViolation(err)) return null;
        throw err;
      }
    },
    async update(id, w) {
      try {
        const rows = await c.write((db) => db.update(customGeo).set(w).where(eq(customGeo.id, id)).returning());
        return rows[0] ? toGeo(rows[0]) : 'missing';
      } catch (err) {
        if (isUniqueViolation(err)) return 'taken';
        throw err;
      }
    },
    async setStatus(id, status, lastDownload) {
      const set = lastDownload === undefined ? { status } : { status, lastDownload };
      const rows = await c.write((db) =>
        db.update(customGeo).set(set).where(eq(customGeo.id, id)).returning({ id: customGeo.id }),
      );
      return rows.length > 0;
    },
    async remove(id) {
      const rows = await c.write((db) =>
        db.delete(customGeo).where(eq(customGeo.id, id)).returning({ id: customGeo.id }),
      );
      return rows.length > 0;
    },
  };
}
