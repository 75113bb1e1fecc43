-- Hand-written (drizzle-kit generate --custom): a PostgreSQL storage parameter the Drizzle schema cannot express.
-- The traffic tick rewrites up/down/last_online of every client that moved; none of these columns is indexed, so
-- with free room on each page the new row version stays on the same page (HOT update: no index entry, about half
-- the WAL and time per tick). fillfactor 50 leaves that room for new pages; pages written before this migration
-- get it as their rows are next moved (an update that is not HOT puts the new version on a page with room).
ALTER TABLE "client_traffics" SET (fillfactor = 50);
