import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import {
  CertificateHoldReleasedPayload,
  CertificateRevokedPayload,
  EventEnvelope,
  EventType,
  RevocationReasonCodes,
} from '@ca/contracts';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { REVOCATION_MIGRATIONS } from '../migrations';
import { REVOCATION_SCHEMA } from '../revocation.schema';
import { SqlRevocationDatabase } from '../stores/revocation-database.store';
import { RevocationLedger } from './revocation.ledger';

/**
 * A bulk revocation job's batches sent directly (docs/architecture.md#bulk-revocation-direct-path):
 * one transaction per batch, and the stream's copies of the same events, arriving later one at a
 * time or as a run, change nothing: every revocation is recorded once. A serial the ledger lists
 * already (a hold whose release the stream has not brought yet) and an event of another tenant's CA
 * are left to the stream, which applies them in its order.
 */
jest.setTimeout(60_000);

describe.each(databaseKinds())('RevocationLedger direct path (%s database)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let ledger: RevocationLedger;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: REVOCATION_SCHEMA,
      entities: [],
      migrations: REVOCATION_MIGRATIONS,
    });
    ledger = new RevocationLedger(new SqlRevocationDatabase(dataSource));
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  async function newIssuer(): Promise<{ tenantId: string; caId: string }> {
    const issuer = { tenantId: randomUUID(), caId: randomUUID() };
    await dataSource.query(
      `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after)
       VALUES ($1, $2, $3, now() + interval '1 year')`,
      [issuer.tenantId, issuer.caId, Buffer.from([0x30, 0x00])],
    );
    return issuer;
  }

  const revoked = (
    { tenantId, caId }: { tenantId: string; caId: string },
    serialNumber: string,
    reasonCode: number = RevocationReasonCodes.CessationOfOperation,
    revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString(),
    certificateId: string = randomUUID(),
  ): EventEnvelope<CertificateRevokedPayload> => ({
    id: randomUUID(),
    type: EventType.CertificateRevoked,
    tenantId,
    occurredAt: revokedAt,
    payload: {
      tenantId,
      caId,
      certificateId,
      serialNumber,
      revokedAt,
      reasonCode,
    },
  });

  const entries = async (caId: string) =>
    (
      await dataSource.query<{ serial_number: string; reason_code: number }[]>(
        'SELECT serial_number, reason_code FROM revocation.revoked_certificates WHERE ca_id = $1 ORDER BY serial_number',
        [caId],
      )
    ).map((row) => `${row.serial_number}:${row.reason_code}`);

  const inInbox = async (events: EventEnvelope[]) =>
    Number(
      (
        await dataSource.query<{ n: string }[]>(
          'SELECT count(*) AS n FROM revocation.inbox WHERE event_id = ANY($1::uuid[])',
          [events.map((event) => event.id)],
        )
      )[0].n,
    );

  it('records a batch in one go; the stream copies, one by one or as a run, record nothing again', async () => {
    const issuer = await newIssuer();
    const batch = Array.from({ length: 256 }, (_, i) =>
      revoked(issuer, `B${i.toString(16).padStart(4, '0')}`),
    );
    const direct = await ledger.recordDirect(batch);
    expect(direct).toEqual({ recorded: 256, caIds: [issuer.caId] });
    expect(await entries(issuer.caId)).toHaveLength(256);
    expect(await inInbox(batch)).toBe(256);

    // The same message again (a retry), then the stream's copies: one at a time, then as a run.
    expect(await ledger.recordDirect(batch)).toEqual({ recorded: 0, caIds: [] });
    for (const event of batch.slice(0, 10)) expect(await ledger.recordRevocations([event])).toEqual([]);
    expect(await ledger.recordRevocations(batch.slice(10))).toEqual([]);
    const listed = await entries(issuer.caId);
    expect(listed).toHaveLength(256);
    expect(new Set(listed).size).toBe(256);
  });

  it('records the direct copy once when the stream brought it first', async () => {
    const issuer = await newIssuer();
    const batch = Array.from({ length: 4 }, (_, i) => revoked(issuer, `C${i}`));
    expect(await ledger.recordRevocations(batch.slice(0, 2))).toEqual([issuer.caId]);
    expect(await ledger.recordDirect(batch)).toEqual({ recorded: 2, caIds: [issuer.caId] });
    expect(await entries(issuer.caId)).toHaveLength(4);
  });

  it("leaves a serial listed already (a hold) and another tenant's CA to the stream, which applies them in order", async () => {
    const issuer = await newIssuer();
    const other = await newIssuer();
    const heldAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString();
    const hold = revoked(issuer, 'D1', RevocationReasonCodes.CertificateHold, heldAt);
    const release: EventEnvelope<CertificateHoldReleasedPayload> = {
      id: randomUUID(),
      type: EventType.CertificateHoldReleased,
      tenantId: issuer.tenantId,
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: issuer.tenantId,
        caId: issuer.caId,
        certificateId: hold.payload.certificateId,
        serialNumber: 'D1',
        heldSince: heldAt,
        releasedAt: new Date().toISOString(),
        releasedBy: 'test',
      },
    };
    const again = revoked(
      issuer,
      'D1',
      RevocationReasonCodes.CessationOfOperation,
      undefined,
      hold.payload.certificateId,
    );
    // Another tenant's CA named under this tenant: refused, on either path.
    const foreign = revoked({ tenantId: issuer.tenantId, caId: other.caId }, 'D2');
    const fresh = revoked(issuer, 'D3');

    // The stream has brought the hold, not yet its release; the job's batch arrives directly.
    expect(await ledger.recordRevocations([hold])).toEqual([issuer.caId]);
    expect(await ledger.recordDirect([again, foreign, fresh])).toEqual({ recorded: 1, caIds: [issuer.caId] });
    expect(await inInbox([again, foreign])).toBe(0);
    // The stream goes on in its order: the release drops the hold, the revocation lists it again.
    expect(await ledger.releaseHold(release)).toBe(true);
    expect(await ledger.recordRevocations([again, foreign, fresh])).toEqual([issuer.caId]);
    expect(await entries(issuer.caId)).toEqual([
      `D1:${RevocationReasonCodes.CessationOfOperation}`,
      `D3:${RevocationReasonCodes.CessationOfOperation}`,
    ]);
    expect(await entries(other.caId)).toEqual([]);
  });
});
