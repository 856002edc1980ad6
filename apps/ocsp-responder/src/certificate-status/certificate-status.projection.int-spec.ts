import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { CertificateIssuedPayload, CertificateRevokedPayload, EventEnvelope, EventType } from '@ca/contracts';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { OCSP_MIGRATIONS } from '../migrations';
import { OCSP_SCHEMA } from '../ocsp.schema';
import { CertificateStatusProjection } from './certificate-status.projection';

/**
 * The status rows the OCSP hot path answers from memory: a revocation must reach the answers of
 * the replica that applied it at once, and of every other replica (each event is applied by one
 * replica only) within a second (issue #8: OCSP within 1 s p99).
 */
jest.setTimeout(60_000);

const tenantId = randomUUID();
const caId = randomUUID();

function issued(serialNumber: string): EventEnvelope<CertificateIssuedPayload> {
  return {
    id: randomUUID(),
    type: EventType.CertificateIssued,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      certificateId: randomUUID(),
      caId,
      serialNumber,
      notBefore: new Date().toISOString(),
      notAfter: new Date(Date.now() + 86_400_000).toISOString(),
    },
  };
}

function revoked(serialNumber: string): EventEnvelope<CertificateRevokedPayload> {
  return {
    id: randomUUID(),
    type: EventType.CertificateRevoked,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      certificateId: randomUUID(),
      caId,
      serialNumber,
      revokedAt: new Date().toISOString(),
      reasonCode: 1,
    },
  };
}

const serial = () => randomUUID().replace(/-/g, '').toUpperCase();

describe.each(databaseKinds())('CertificateStatusProjection (%s database)', (kind) => {
  let database: TestDatabase;
  let sources: DataSource[];
  let replicaA: CertificateStatusProjection;
  let replicaB: CertificateStatusProjection;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const open = () =>
      openSchemaDataSource({
        url: database.url,
        schema: OCSP_SCHEMA,
        entities: [],
        migrations: OCSP_MIGRATIONS,
      });
    sources = [await open(), await open()];
    replicaA = new CertificateStatusProjection(sources[0]);
    replicaB = new CertificateStatusProjection(sources[1]);
    // Status events are applied only for the tenant's own CA (tenant isolation).
    await sources[0].query(
      `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at)
       VALUES ($1, $2, $3, now() + interval '1 year', now())`,
      [tenantId, caId, Buffer.from([0x30, 0x00])],
    );
    await replicaA.watchChanges();
  });

  afterAll(async () => {
    await replicaA?.stopWatching();
    for (const source of sources ?? []) await source.destroy();
    await database?.drop();
  });

  it('answers from memory once read, and forgets a row revoked on the same replica at once', async () => {
    const s = serial();
    await replicaA.applyIssued(issued(s));
    expect(replicaA.remembered(tenantId, [s])).toBeUndefined();
    expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeNull();
    expect(replicaA.remembered(tenantId, [s])?.get(s)?.revokedAt).toBeNull();

    await replicaA.applyRevoked(revoked(s));
    expect(replicaA.remembered(tenantId, [s])).toBeUndefined();
    expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeInstanceOf(Date);
  });

  it('forgets a row revoked through another replica within a second', async () => {
    const s = serial();
    await replicaB.applyIssued(issued(s));
    await replicaA.find(tenantId, [s]);
    expect(replicaA.remembered(tenantId, [s])?.get(s)?.revokedAt).toBeNull();

    await replicaB.applyRevoked(revoked(s));
    const started = Date.now();
    while (replicaA.remembered(tenantId, [s]) !== undefined && Date.now() - started < 5_000)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await replicaA.find(tenantId, [s])).get(s)?.revokedAt).toBeInstanceOf(Date);
  });

  it('does not remember a serial it did not find: its issue event may come next', async () => {
    const s = serial();
    expect((await replicaA.find(tenantId, [s])).size).toBe(0);
    expect(replicaA.remembered(tenantId, [s])).toBeUndefined();
    await replicaB.applyIssued(issued(s));
    expect((await replicaA.find(tenantId, [s])).get(s)).toBeDefined();
  });
});
