-- Hand-written (drizzle-kit generate --custom): drops the search column of 0002. The paged list now searches the
-- in-memory catalog (domain/clients/catalog.ts), so nothing reads the column, and as a stored generated column it
-- only cost work on every insert and on every update of email, sub_id or comment.
ALTER TABLE "clients" DROP COLUMN IF EXISTS "search_text";
