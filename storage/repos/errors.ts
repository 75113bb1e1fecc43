/** True for a UNIQUE/PRIMARY KEY violation on either dialect (drizzle may wrap the driver error in `cause`). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: any = err; e; e = e.cause) {
    if (e.code === '23505') return true; // PostgreSQL unique_violation
    const text = `${e.code ?? ''} ${e.message ?? ''}`;
    if (/SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)|UNIQUE constraint failed/.test(text)) return true;
  }
  return false;
}
