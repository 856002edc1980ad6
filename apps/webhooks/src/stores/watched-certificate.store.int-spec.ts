import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { CertificateIssuedPayload } from '@ca/contracts';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { WEBHOOKS_MIGRATIONS } from '../migrations';
import { WEBHOOKS_SCHEMA } from '../webhooks.schema';
import { SqlWatchedCertificateStore } from './watched-certificate.store';

jest.setTimeout(60_000);

/**
 * The certificates webhooks watches for expiry, as every event batch's issues write them: one
 * statement for any number, each row as its payload says (names that need quoting included), an
 * issue seen again keeping its row.
 */
describe.each(databaseKinds())('watched certificates from issue events (%s database)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let store: SqlWatchedCertificateStore;
  const tenantId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: WEBHOOKS_SCHEMA,
      entities: [],
      migrations: WEBHOOKS_MIGRATIONS,
    });
    store = new SqlWatchedCertificateStore(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  const issued = (overrides: Partial<CertificateIssuedPayload> = {}): CertificateIssuedPayload => ({
    tenantId,
    certificateId: randomUUID(),
    caId: randomUUID(),
    serialNumber: randomUUID().replace(/-/g, '').toUpperCase(),
    notBefore: '2026-01-01T00:00:00.000Z',
    notAfter: '2026-04-01T00:00:00.000Z',
    ...overrides,
  });

  it('stores a batch of any size in the payloads order, names as given', async () => {
    for (const size of [1, 3, 40]) {
      const payloads = Array.from({ length: size }, (_, i) =>
        issued({
          commonName: i % 2 ? `svc-${i}.example.com` : undefined,
          clientId: `client "${i}", {a}`,
          subjectAlternativeNames: i % 3 ? [`svc-${i}.example.com`, `a,b"{c}\\d-${i}.example.com`] : [],
        }),
      );
      const rows = await store.issuedMany(payloads);
      expect(rows.map((row) => row.certificate_id)).toEqual(payloads.map((p) => p.certificateId));
      rows.forEach((row, i) => {
        expect(row.subject_alternative_names).toEqual(payloads[i].subjectAlternativeNames);
        expect(row.common_name).toBe(payloads[i].commonName ?? null);
        expect(row.client_id).toBe(payloads[i].clientId);
        expect(new Date(row.not_after).toISOString()).toBe(payloads[i].notAfter);
        expect(row.revoked_at).toBeNull();
      });
    }
  });

  it('keeps one row per certificate: the same issue twice in a batch, or again later, takes the last notAfter and keeps the revocation', async () => {
    const first = issued({ subjectAlternativeNames: ['one.example.com'] });
    const again = { ...first, notAfter: '2026-05-01T00:00:00.000Z' };
    const rows = await store.issuedMany([first, again]);
    expect(rows.map((row) => new Date(row.not_after).toISOString())).toEqual([
      again.notAfter,
      again.notAfter,
    ]);
    await store.revoked(tenantId, first.certificateId, '2026-02-01T00:00:00.000Z');
    const [later] = await store.issuedMany([{ ...first, notAfter: '2026-06-01T00:00:00.000Z' }]);
    expect(new Date(later.not_after).toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect(new Date(later.revoked_at!).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    const [{ count }] = await dataSource.query(
      'SELECT count(*)::int AS count FROM webhooks.certificates WHERE certificate_id = $1',
      [first.certificateId],
    );
    expect(count).toBe(1);
  });
});
