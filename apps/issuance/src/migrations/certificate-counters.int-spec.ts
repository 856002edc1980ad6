import { randomUUID } from 'node:crypto';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { CertificateEntity } from '../certificates/certificate.entity';
import { insertPlaceholderCa } from '../testing/placeholder-ca.store';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '.';

jest.setTimeout(60_000);

/**
 * The counters behind the plan limit and the inventory summary stay equal to a count of the
 * certificates themselves whatever a statement changes at once: issues of several tenants,
 * revocations, released holds, days moved, rows deleted, and two writers of one tenant at once.
 */
describe.each(databaseKinds())('certificate counters (%s)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let caId: string;
  const open = () =>
    openSchemaDataSource({
      url: database.url,
      schema: ISSUANCE_SCHEMA,
      entities: [CertificateAuthorityEntity, CertificateEntity],
      migrations: ISSUANCE_MIGRATIONS,
    });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await open();
    caId = await insertPlaceholderCa(dataSource, { validForMs: 400 * 86_400_000 });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** `count` certificates of each tenant in one statement, notAfter spread over 5 days, 1 in 4 revoked. */
  async function issue(tenants: string[], count: number, source = dataSource): Promise<void> {
    await source.query(
      `INSERT INTO issuance.certificates
         (id, tenant_id, ca_id, serial_number, client_id, common_name, organization, organizational_unit,
          country, certificate_der, usage, dns_names, must_staple, custom_extensions, not_before, not_after,
          issued_at, revoked_at, revocation_reason, revocation_reason_code, source)
       SELECT gen_random_uuid(), t, $2, md5(random()::text), 'client', 'cn', 'Acme', 'Ops', 'US', '\\x3000',
              'Client', ARRAY['a.example.com'], false, '[]'::jsonb, now(),
              now() + make_interval(days => 1 + i % 5, hours => i % 24),
              now(), CASE WHEN i % 4 = 0 THEN now() END, CASE WHEN i % 4 = 0 THEN 'test' END,
              CASE WHEN i % 4 = 0 THEN 1 END, 'api'
         FROM unnest($1::uuid[]) AS t, generate_series(1, $3::int) AS i`,
      [tenants, caId, count],
    );
  }

  /** Each tenant's counters next to the same figures counted from the certificates. */
  async function countersAndCounts(tenants: string[]): Promise<{ counters: unknown; counted: unknown }> {
    const counters = await dataSource.query(
      `SELECT tenant_id, expiry_day::text, unrevoked::int, revoked::int FROM issuance.inventory_counts
        WHERE tenant_id = ANY($1::uuid[]) AND (unrevoked > 0 OR revoked > 0) ORDER BY 1, 2`,
      [tenants],
    );
    const counted = await dataSource.query(
      `SELECT tenant_id, (not_after AT TIME ZONE 'UTC')::date::text AS expiry_day,
              count(*) FILTER (WHERE revoked_at IS NULL)::int AS unrevoked,
              count(*) FILTER (WHERE revoked_at IS NOT NULL)::int AS revoked
         FROM issuance.certificates WHERE tenant_id = ANY($1::uuid[]) GROUP BY 1, 2 ORDER BY 1, 2`,
      [tenants],
    );
    const active = await dataSource.query(
      `SELECT k.tenant_id, k.unrevoked::int AS counter,
              (SELECT count(*)::int FROM issuance.certificates c
                WHERE c.tenant_id = k.tenant_id AND c.revoked_at IS NULL AND c.not_after > k.counted_after) AS counted
         FROM issuance.active_certificate_counts k WHERE k.tenant_id = ANY($1::uuid[]) ORDER BY 1`,
      [tenants],
    );
    return {
      counters: { days: counters, active: active.map((row: { counter: number }) => row.counter) },
      counted: { days: counted, active: active.map((row: { counted: number }) => row.counted) },
    };
  }

  it('counts issues of several tenants, revocations, released holds, moved days and deletions made in one statement each', async () => {
    const tenants = [randomUUID(), randomUUID(), randomUUID()];
    await issue(tenants, 40);
    let { counters, counted } = await countersAndCounts(tenants);
    expect(counters).toEqual(counted);
    expect((counted as { active: number[] }).active).toEqual([30, 30, 30]);

    const steps = [
      // Revoked across two tenants at once (a bulk revocation's statement).
      `UPDATE issuance.certificates SET revoked_at = now(), revocation_reason_code = 1
        WHERE tenant_id = ANY($1::uuid[]) AND revoked_at IS NULL AND tenant_id <> $2 AND client_id = 'client'
          AND serial_number < '8'`,
      // Holds released: revoked back to good.
      `UPDATE issuance.certificates SET revoked_at = NULL, revocation_reason_code = NULL
        WHERE tenant_id = ANY($1::uuid[]) AND revoked_at IS NOT NULL AND serial_number < '4' AND $2::uuid IS NOT NULL`,
      // A column the counters do not count.
      `UPDATE issuance.certificates SET client_id = 'renamed' WHERE tenant_id = ANY($1::uuid[]) AND $2::uuid IS NOT NULL`,
      // notAfter moved to other days, some into a day no certificate had.
      `UPDATE issuance.certificates SET not_after = not_after + interval '30 days'
        WHERE tenant_id = ANY($1::uuid[]) AND serial_number > 'b' AND $2::uuid IS NOT NULL`,
    ];
    for (const step of steps) {
      await dataSource.query(step, [tenants, tenants[2]]);
      ({ counters, counted } = await countersAndCounts(tenants));
      expect(counters).toEqual(counted);
    }
    // Nothing deletes certificates; should an operator, the summary's days stay exact.
    await dataSource.query(
      `DELETE FROM issuance.certificates WHERE tenant_id = ANY($1::uuid[]) AND serial_number > 'd'`,
      [tenants],
    );
    ({ counters, counted } = await countersAndCounts(tenants));
    expect((counters as { days: unknown }).days).toEqual((counted as { days: unknown }).days);
  });

  it('leaves the plan-limit count alone for certificates that expired before it was last counted', async () => {
    const tenantId = randomUUID();
    await issue([tenantId], 20);
    // As an admission does: what expires before counted_after is no longer counted.
    await dataSource.query(
      `UPDATE issuance.active_certificate_counts SET counted_after = now() + interval '3 days',
              unrevoked = (SELECT count(*) FROM issuance.certificates
                            WHERE tenant_id = $1 AND revoked_at IS NULL AND not_after > now() + interval '3 days')
        WHERE tenant_id = $1`,
      [tenantId],
    );
    await dataSource.query(
      `UPDATE issuance.certificates SET revoked_at = now() WHERE tenant_id = $1 AND revoked_at IS NULL`,
      [tenantId],
    );
    const [{ unrevoked }] = await dataSource.query(
      'SELECT unrevoked::int FROM issuance.active_certificate_counts WHERE tenant_id = $1',
      [tenantId],
    );
    expect(unrevoked).toBe(0);
    const { counters, counted } = await countersAndCounts([tenantId]);
    expect(counters).toEqual(counted);
  });

  (kind === 'postgres' ? it : it.skip)(
    'keeps exact counts, without a deadlock, while two writers revoke and issue for the same tenants at once',
    async () => {
      const tenants = [randomUUID(), randomUUID()];
      await issue(tenants, 200);
      const other = await open();
      try {
        const revoke = (source: DataSource, slice: string) =>
          source.query(
            `UPDATE issuance.certificates SET revoked_at = now()
              WHERE tenant_id = ANY($1::uuid[]) AND revoked_at IS NULL AND serial_number LIKE $2`,
            [tenants, `${slice}%`],
          );
        const rounds = '0123456789abcdef'
          .split('')
          .map((slice, i) =>
            Promise.all([
              revoke(i % 2 ? dataSource : other, slice),
              issue([...tenants].reverse(), 5, i % 2 ? other : dataSource),
            ]),
          );
        await Promise.all(rounds);
      } finally {
        await other.destroy();
      }
      const { counters, counted } = await countersAndCounts(tenants);
      expect(counters).toEqual(counted);
    },
  );
});
