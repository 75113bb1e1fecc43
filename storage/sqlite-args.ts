// Shared by the main connection's raw statements (repos/raw.ts) and the read-aside worker (read-aside.ts), so that
// read-aside.ts need not import a repository module (conn.ts → read-aside.ts → repos/raw.ts → conn.ts was a cycle).

/** Statement arguments as libsql takes them (booleans as 1/0, the way the schema stores them). */
export const sqliteArgs = (args: unknown[]): unknown[] => args.map((a) => (typeof a === 'boolean' ? (a ? 1 : 0) : a));
