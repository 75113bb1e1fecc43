import { defineConfig } from 'drizzle-kit';
export default defineConfig({
  dialect: 'postgresql',
  schema: './storage/schema/pg.ts',
  out: './storage/migrations/pg',
});
