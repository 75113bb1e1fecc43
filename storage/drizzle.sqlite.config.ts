import { defineConfig } from 'drizzle-kit';
export default defineConfig({
  dialect: 'sqlite',
  schema: './storage/schema/sqlite.ts',
  out: './storage/migrations/sqlite',
});
