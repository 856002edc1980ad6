/** Postgres SQLSTATE 23505: a unique constraint refused the row. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string } } | undefined;
  return e?.code === '23505' || e?.driverError?.code === '23505';
}
