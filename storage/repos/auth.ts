// Users, settings and API tokens.
import { asc, eq } from 'drizzle-orm';
import type { ApiTokenRow, SettingsRepo, TokensRepo, UserRow, UsersRepo } from '../../domain/ports/auth-repo.js';
import type { Conn } from '../conn.js';
import { isUniqueViolation } from './errors.js';

export function usersRepo(c: Conn): UsersRepo {
  const { users } = c.t;
  return {
    async first() {
      const [row] = await c.db.select().from(users).orderBy(asc(users.id)).limit(1);
      return row ?? null;
    },
    async byId(id) {
      const [row] = await c.db.select().from(users).where(eq(users.id, id));
      return row ?? null;
    },
    async create(username, passwordHash) {
      const [row] = await c.write((db) =>
        db.insert(users).values({ username, passwordHash, sessionVersion: 1 }).returning(),
      );
      return row as UserRow;
    },
    async setCredential(id, username, passwordHash) {
      return c.tx(async (tx) => {
        const [cur] = await tx.db.select().from(users).where(eq(users.id, id));
        if (!cur) throw new Error(`user ${id} not found`);
        const [row] = await tx.db
          .update(users)
          .set({ username, passwordHash, sessionVersion: cur.sessionVersion + 1 })
          .where(eq(users.id, id))
          .returning();
        return row as UserRow;
      });
    },
  };
}

export function settingsRepo(c: Conn): SettingsRepo {
  const { settings } = c.t;
  return {
    async all() {
      const rows = await c.db.select().from(settings);
      return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
    },
    async get(key) {
      const [row] = await c.db.select().from(settings).where(eq(settings.key, key));
      return row ? JSON.parse(row.value) : undefined;
    },
    async setMany(values) {
      const entries = Object.entries(values);
      if (entries.length === 0) return;
      await c.tx(async (tx) => {
        for (const [key, v] of entries) {
          const value = JSON.stringify(v);
          await tx.db
            .insert(settings)
            .values({ key, value })
            .onConflictDoUpdate({ target: settings.key, set: { value } });
        }
      });
    },
  };
}

export function tokensRepo(c: Conn): TokensRepo {
  const { apiTokens } = c.t;
  return {
    list: () => c.db.select().from(apiTokens).orderBy(asc(apiTokens.id)),
    async byToken(token) {
      const [row] = await c.db.select().from(apiTokens).where(eq(apiTokens.token, token));
      return row ?? null;
    },
    async byName(name) {
      const [row] = await c.db.select().from(apiTokens).where(eq(apiTokens.name, name));
      return row ?? null;
    },
    async create(input) {
      try {
        const [row] = await c.write((db) => db.insert(apiTokens).values(input).returning());
        return row as ApiTokenRow;
      } catch (err) {
        if (isUniqueViolation(err)) return null;
        throw err;
      }
    },
    async remove(id) {
      const res = await c.write((db) => db.delete(apiTokens).where(eq(apiTokens.id, id)));
      return c.affected(res) > 0;
    },
    async setEnabled(id, enabled) {
      const res = await c.write((db) => db.update(apiTokens).set({ enabled }).where(eq(apiTokens.id, id)));
      return c.affected(res) > 0;
    },
  };
}
