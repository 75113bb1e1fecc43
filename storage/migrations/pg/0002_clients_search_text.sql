-- Hand-written (drizzle-kit generate --custom): the paged list's search column, kept out of the Drizzle schema so
-- that no query selects it by accident. The search matches a case-insensitive (ASCII) substring of email, subId or
-- comment; one stored lower-cased text (the fields joined by chr(1), which a search for text without control
-- characters cannot match across) lets one LIKE replace three lower()+strpos() per row, and its column statistics
-- let the planner estimate how many rows a search matches (it could not for strpos(), and chose index nested loops
-- over 90,000 rows).
ALTER TABLE "clients" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(("email" || chr(1) || "sub_id" || chr(1) || "comment") COLLATE "C")) STORED;
