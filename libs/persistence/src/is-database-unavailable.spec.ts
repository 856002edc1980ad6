import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './is-database-unavailable';

describe('isDatabaseUnavailable', () => {
  it('is true for a refused connection, a shutdown state, a connection exception and a cut connection', () => {
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      ),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it.each([
    ['28000', 'role "ocsp" is not permitted to log in'],
    ['28P01', 'password authentication failed for user "ocsp"'],
    ['42501', 'permission denied for database "ca"'],
    ['3D000', 'database "ca" does not exist'],
    ['57P04', 'database dropped'],
    ['53300', 'too many connections for role "ocsp"'],
  ])('is true when the service is refused: %s %s', (code, message) => {
    expect(isDatabaseUnavailable(Object.assign(new Error(message), { code }))).toBe(true);
  });

  it('looks inside TypeORM query errors', () => {
    const driverError = Object.assign(new Error('terminating connection due to crash'), { code: '57P02' });
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], driverError))).toBe(true);
  });

  it('is false for errors of the statement or the data', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
