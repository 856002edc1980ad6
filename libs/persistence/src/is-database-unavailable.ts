/** Node socket errors of a connection that could not be made or was cut. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
/**
 * SQLSTATE 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting,
 * recovering), 57P04 database_dropped; and the service's role refused: 3D000 invalid_catalog_name
 * (its database dropped), 42501 insufficient_privilege (CONNECT or a grant revoked).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '57P04', '3D000', '42501']);
/** SQLSTATE classes 08 connection exception, 28 invalid authorization (NOLOGIN, a wrong password), 53 insufficient resources (too many connections, disk full). */
const UNAVAILABLE_CLASSES = /^(08|28|53)[0-9A-Z]{3}$/;
/** What node-postgres says when a connection ends under it or the pool cannot hand one out. */
const DRIVER_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i;

/**
 * Whether the error means the database is away or refuses the service (down, restarting,
 * unreachable, its role or database gone, its rights revoked) rather than that the statement or
 * the data was wrong: the states and classes above, socket errors, and node-postgres's own
 * connection messages. Such a failure is a 503 to retry, not a 500: nothing the client sent
 * caused it. Looks through TypeORM's QueryFailedError (`driverError`) and `cause`.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.has(code) || UNAVAILABLE_CLASSES.test(code)) return true;
  if (typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
