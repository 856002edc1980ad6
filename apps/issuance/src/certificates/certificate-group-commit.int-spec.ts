import { randomBytes, randomUUID } from 'node:crypto';
import { ErrorCode, EventEnvelope } from '@ca/contracts';
import { isUniqueViolation, openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { insertPlaceholderCa } from '../testing/placeholder-ca.store';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { SqlIssuanceDatabase } from '../issuance-database.store';
import { CertificateGroupCommit, CertificateToStore } from './certificate-group-commit';
import { CertificateEntity } from './certificate.entity';

jest.setTimeout(60_000);

/**
 * Group commit against a real schema: concurrent certificates share transactions, yet each
 * caller is answered only after its row is committed, the plan limit stays exact (also across two
 * processes), and one bad row fails only its own caller.
 */
describe.each(databaseKinds())('certificate group commit (%s)', (kind) => {
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
    caId = await insertPlaceholderCa(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  function certificateFor(
    tenantId: string,
    serialNumber = randomBytes(16).toString('hex'),
  ): CertificateToStore {
    const id = randomUUID();
    const now = new Date();
    const event: EventEnvelope = {
      id: randomUUID(),
      type: 'certificate.issued',
      tenantId,
      occurredAt: now.toISOString(),
      payload: { tenantId, certificateId: id },
    };
    return {
      certificate: {
        id,
        tenantId,
        caId,
        serialNumber,
        clientId: 'client',
        commonName: 'cn',
        organization: 'Acme',
        organizationalUnit: 'Ops',
        country: 'US',
        certificateDer: Buffer.of(0x30, 0x00),
        usage: 'Client',
        dnsNames: ['a.example.com'],
        mustStaple: false,
        customExtensions: [{ key: 'k', value: 'v' }],
        notBefore: now,
        notAfter: new Date(now.getTime() + 86_400_000),
        issuedAt: now,
        renewedFrom: null,
        issuedBy: 'tester',
        keyFromCsr: false,
        source: 'api',
      },
      event,
    };
  }

  const stored = async (tenantId: string) => {
    const [{ certificates }] = await dataSource.query(
      'SELECT count(*)::int AS certificates FROM issuance.certificates WHERE tenant_id = $1',
      [tenantId],
    );
    const [{ events }] = await dataSource.query(
      'SELECT count(*)::int AS events FROM issuance.outbox WHERE tenant_id = $1',
      [tenantId],
    );
    return { certificates, events };
  };

  it('stores concurrent certificates in fewer transactions, each with its event, readable once its promise resolves', async () => {
    let commits = 0;
    const groupCommit = new CertificateGroupCommit({
      database: new SqlIssuanceDatabase(dataSource),
      onCommitted: () => commits++,
      defaultCertificateLimit: 1000,
    });
    const tenantId = randomUUID();
    const items = Array.from({ length: 12 }, () => certificateFor(tenantId));
    await Promise.all(
      items.map(async (item) => {
        await groupCommit.store(item);
        const rows = await dataSource.query(
          'SELECT custom_extensions, dns_names FROM issuance.certificates WHERE id = $1',
          [item.certificate.id],
        );
        expect(rows).toEqual([
          { custom_extensions: [{ key: 'k', value: 'v' }], dns_names: ['a.example.com'] },
        ]);
      }),
    );
    expect(await stored(tenantId)).toEqual({ certificates: 12, events: 12 });
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThan(12);
  });

  it('keeps the plan limit exact within a batch and across two processes, refusing the rest with CERTIFICATE_LIMIT_REACHED', async () => {
    const other = await open();
    try {
      const tenantId = randomUUID();
      await dataSource.query(
        `INSERT INTO issuance.tenants (tenant_id, status, certificate_limit, updated_at) VALUES ($1, 'active', 5, now())`,
        [tenantId],
      );
      const first = new CertificateGroupCommit({
        database: new SqlIssuanceDatabase(dataSource),
        onCommitted: () => undefined,
        defaultCertificateLimit: 1000,
      });
      const second = new CertificateGroupCommit({
        database: new SqlIssuanceDatabase(other),
        onCommitted: () => undefined,
        defaultCertificateLimit: 1000,
      });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) => (i % 2 ? first : second).store(certificateFor(tenantId))),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
      for (const refused of outcomes.filter((o) => o.status === 'rejected')) {
        expect((refused as PromiseRejectedResult).reason).toMatchObject({
          code: ErrorCode.CertificateLimitReached,
        });
      }
      expect(await stored(tenantId)).toEqual({ certificates: 5, events: 5 });
    } finally {
      await other.destroy();
    }
  });

  it('frees the slot of an expired or revoked certificate and takes it again when a revocation is undone', async () => {
    const tenantId = randomUUID();
    await dataSource.query(
      `INSERT INTO issuance.tenants (tenant_id, status, certificate_limit, updated_at) VALUES ($1, 'active', 3, now())`,
      [tenantId],
    );
    const groupCommit = new CertificateGroupCommit({
      database: new SqlIssuanceDatabase(dataSource),
      onCommitted: () => undefined,
      defaultCertificateLimit: 1000,
    });
    const storeOne = () => groupCommit.store(certificateFor(tenantId));
    const [expiring, revoked] = [certificateFor(tenantId), certificateFor(tenantId)];
    for (const item of [expiring, revoked]) await groupCommit.store(item);
    await storeOne();
    await expect(storeOne()).rejects.toMatchObject({ code: ErrorCode.CertificateLimitReached });

    // Expiry writes nothing: the certificate's notAfter simply passes.
    await dataSource.query('UPDATE issuance.certificates SET not_after = clock_timestamp() WHERE id = $1', [
      expiring.certificate.id,
    ]);
    await dataSource.query('UPDATE issuance.certificates SET revoked_at = now() WHERE id = $1', [
      revoked.certificate.id,
    ]);
    await storeOne();
    await storeOne();
    await expect(storeOne()).rejects.toMatchObject({ code: ErrorCode.CertificateLimitReached });

    // A released hold counts again (and the expired certificate stays expired).
    await dataSource.query(
      'UPDATE issuance.certificates SET revoked_at = now() WHERE id IN (SELECT id FROM issuance.certificates WHERE tenant_id = $1 AND id <> ALL($2) AND revoked_at IS NULL LIMIT 1)',
      [tenantId, [expiring.certificate.id, revoked.certificate.id]],
    );
    await dataSource.query('UPDATE issuance.certificates SET revoked_at = NULL WHERE id = ANY($1)', [
      [expiring.certificate.id, revoked.certificate.id],
    ]);
    await expect(storeOne()).rejects.toMatchObject({ code: ErrorCode.CertificateLimitReached });
    const [{ active }] = await dataSource.query(
      `SELECT count(*)::int AS active FROM issuance.certificates
        WHERE tenant_id = $1 AND revoked_at IS NULL AND not_after > now()`,
      [tenantId],
    );
    expect(active).toBe(3);
  });

  it('applies DEFAULT_CERTIFICATE_LIMIT to a tenant it has no row for, and refuses a suspended one with FORBIDDEN', async () => {
    const unknown = randomUUID();
    const strict = new CertificateGroupCommit({
      database: new SqlIssuanceDatabase(dataSource),
      onCommitted: () => undefined,
      defaultCertificateLimit: 2,
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => strict.store(certificateFor(unknown))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const suspended = randomUUID();
    await dataSource.query(
      `INSERT INTO issuance.tenants (tenant_id, status, certificate_limit, updated_at) VALUES ($1, 'suspended', 10, now())`,
      [suspended],
    );
    await expect(strict.store(certificateFor(suspended))).rejects.toMatchObject({
      code: ErrorCode.Forbidden,
    });
    expect(await stored(suspended)).toEqual({ certificates: 0, events: 0 });
  });

  it('fails only the certificate with a duplicate serial when its batch fails, storing the others one by one', async () => {
    const tenantId = randomUUID();
    const groupCommit = new CertificateGroupCommit({
      database: new SqlIssuanceDatabase(dataSource),
      onCommitted: () => undefined,
      defaultCertificateLimit: 1000,
    });
    const taken = certificateFor(tenantId);
    await groupCommit.store(taken);
    const blocker = groupCommit.store(certificateFor(tenantId)); // the batch after it queues up meanwhile
    const batch = [
      certificateFor(tenantId),
      certificateFor(tenantId, taken.certificate.serialNumber),
      certificateFor(tenantId),
    ];
    const outcomes = await Promise.allSettled([blocker, ...batch.map((item) => groupCommit.store(item))]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(isUniqueViolation((outcomes[2] as PromiseRejectedResult).reason)).toBe(true);
    expect(await stored(tenantId)).toEqual({ certificates: 4, events: 4 });
  });
});
