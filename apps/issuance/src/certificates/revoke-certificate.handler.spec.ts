import { ErrorCode, EventType, RevocationReasonCode, RevocationReasonCodes } from '@ca/contracts';
import {
  MemoryBlockedKeyStore,
  MemoryCertificateRevocationStore,
  MemoryCertificateStore,
  MemoryOutboxStore,
  MemoryTenantStandingStore,
  memoryDatabase,
} from '../memory-stores';
import type { ResponderPublication } from '../publication/responder-publication';
import type { RevocationLedgerFeed } from '../publication/revocation-ledger-feed';
import type { NewCertificate } from './certificate.store';
import { ReleaseHoldHandler } from './release-hold.handler';
import { RevokeCertificateHandler } from './revoke-certificate.handler';

const TENANT = '0a0a0a0a-0000-4000-8000-000000000001';
const OTHER_TENANT = '0a0a0a0a-0000-4000-8000-000000000002';
const id = (n: number) => `0b0b0b0b-0000-4000-8000-00000000000${n}`;

function certificate(n: number, tenantId = TENANT): NewCertificate {
  return {
    id: id(n),
    tenantId,
    caId: '0c0c0c0c-0000-4000-8000-000000000001',
    serialNumber: `7${n}`,
    notAfter: new Date(Date.now() + 86_400_000),
  } as NewCertificate;
}

/** The handlers on in-memory stores, with certificates 1 to 3 of the tenant and 4 of another. */
function setUp() {
  const certificates = new MemoryCertificateStore();
  certificates.rows.push(certificate(1), certificate(2), certificate(3), certificate(4, OTHER_TENANT));
  const revocations = new MemoryCertificateRevocationStore(certificates);
  const outbox = new MemoryOutboxStore();
  const tenants = new MemoryTenantStandingStore();
  const database = memoryDatabase({
    certificates,
    certificateRevocations: revocations,
    blockedKeys: new MemoryBlockedKeyStore(),
    outbox,
    tenants,
  });
  const published = jest.fn(async () => true);
  const publication = { published } as unknown as ResponderPublication;
  const sent = jest.fn(async () => true);
  const ledgerFeed = { send: sent } as unknown as RevocationLedgerFeed;
  const revoke = new RevokeCertificateHandler(database, () => undefined, publication, ledgerFeed);
  const release = new ReleaseHoldHandler(database, () => undefined, 10, publication);
  return { certificates, revocations, outbox, tenants, published, sent, revoke, release };
}

const revokeCommand = (n: number, reasonCode: RevocationReasonCode = 'Superseded') => ({
  tenantId: TENANT,
  principal: 'alice',
  certificateId: id(n),
  request: { reason: 'replaced', reasonCode },
});

describe('RevokeCertificateHandler', () => {
  it('revokes once: the row, its event with the next status sequence, the work given, the publication', async () => {
    const { certificates, outbox, published, revoke } = setUp();
    const inTransaction = jest.fn(async () => undefined);
    const result = await revoke.execute(revokeCommand(1), inTransaction);
    expect(result).toMatchObject({ certificateId: id(1), published: true });
    expect(certificates.rows[0]).toMatchObject({
      revocationReason: 'replaced',
      revocationReasonCode: RevocationReasonCodes.Superseded,
      revokedBy: 'alice',
    });
    expect(outbox.events).toHaveLength(1);
    expect(outbox.events[0]).toMatchObject({
      type: EventType.CertificateRevoked,
      payload: { certificateId: id(1), sequence: 1, reasonCode: RevocationReasonCodes.Superseded },
    });
    expect(inTransaction).toHaveBeenCalledTimes(1);
    expect(published).toHaveBeenCalledWith([outbox.events[0]], 'revocation');
    await expect(revoke.execute(revokeCommand(1))).rejects.toMatchObject({ code: ErrorCode.Conflict });
  });

  it("refuses another tenant's certificate", async () => {
    const { revoke } = setUp();
    await expect(revoke.execute(revokeCommand(4))).rejects.toMatchObject({ code: ErrorCode.Forbidden });
  });

  it('revokes a batch: the unrevoked of the tenant, events in the order given, sent to the CRL and the responder', async () => {
    const { outbox, published, sent, revoke } = setUp();
    await revoke.execute(revokeCommand(2));
    outbox.events.length = 0;
    const settled = jest.fn(async () => undefined);
    const outcome = await revoke.executeBatch(
      {
        tenantId: TENANT,
        principal: 'job',
        certificateIds: [id(3), id(2), id(4), id(1)],
        reason: 'bulk',
        reasonCodeNumber: RevocationReasonCodes.CessationOfOperation,
      },
      settled,
    );
    expect(outcome.revoked).toEqual([id(3), id(1)]);
    expect(outcome.skipped).toEqual([id(2), id(4)]);
    expect(outcome.events.map((e) => e.payload.certificateId)).toEqual([id(3), id(1)]);
    expect(outbox.events).toEqual(outcome.events);
    expect(settled).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ revoked: [id(3), id(1)] }),
    );
    expect(await outcome.delivered).toBe(true);
    expect(sent).toHaveBeenCalledWith(outcome.events);
    expect(published).toHaveBeenLastCalledWith(outcome.events, 'revocation');
  });
});

describe('ReleaseHoldHandler', () => {
  it('releases a hold: the row Active again, its history, the event with the next status sequence', async () => {
    const { certificates, revocations, outbox, revoke, release } = setUp();
    await revoke.execute(revokeCommand(1, 'CertificateHold'));
    const answer = await release.execute({
      tenantId: TENANT,
      principal: 'bob',
      certificateId: id(1),
      request: { reason: 'found it' },
    });
    expect(answer.certificateId).toBe(id(1));
    expect(certificates.rows[0].revokedAt).toBeUndefined();
    expect(revocations.holdReleases).toEqual([
      expect.objectContaining({ certificateId: id(1), releasedBy: 'bob', releaseReason: 'found it' }),
    ]);
    expect(outbox.events[1]).toMatchObject({
      type: EventType.CertificateHoldReleased,
      payload: { certificateId: id(1), sequence: 2 },
    });
  });

  it('refuses a certificate not on hold, and one the plan limit has no room for', async () => {
    const { tenants, revoke, release } = setUp();
    const command = { tenantId: TENANT, principal: 'bob', certificateId: id(1), request: {} };
    await expect(release.execute(command)).rejects.toMatchObject({ code: ErrorCode.CertificateNotOnHold });
    await revoke.execute(revokeCommand(1, 'CertificateHold'));
    tenants.active.set(TENANT, 10);
    await expect(release.execute(command)).rejects.toMatchObject({ code: ErrorCode.CertificateLimitReached });
  });
});
