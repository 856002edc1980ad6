import { randomUUID } from 'node:crypto';
import { CaError, CrlPublishedCommand, EventType } from '@ca/contracts';
import { CertificateStatusProjection } from '../certificate-status/certificate-status.projection';
import { ServedCrlStore } from '../crls/served-crl.store';
import { CaEventAppliers, DirectPublication } from './direct-publication';

/**
 * Revocation's early CRL announcement (docs/architecture.md#bulk-revocation-direct-path): checked
 * whole, as an HTTP body would be, then applied exactly as the stream's copy.
 */
describe('DirectPublication.crlAnnounced', () => {
  const tenantId = randomUUID();
  const event = () => ({
    id: randomUUID(),
    type: EventType.CrlPublished,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      caId: randomUUID(),
      crlNumber: '7',
      thisUpdate: new Date().toISOString(),
      nextUpdate: new Date(Date.now() + 86_400_000).toISOString(),
      blobRef: randomUUID(),
      sha256: 'a'.repeat(64),
    },
  });
  const applied: unknown[] = [];
  const publication = new DirectPublication(
    {} as ServedCrlStore,
    {} as CertificateStatusProjection,
    {} as CaEventAppliers,
    Date.now,
    async (e) => {
      applied.push(e);
    },
  );

  beforeEach(() => applied.splice(0));

  it('applies a crl.published envelope as the stream would', async () => {
    const announced = event();
    await expect(publication.crlAnnounced({ event: announced } as CrlPublishedCommand)).resolves.toEqual({
      applied: true,
    });
    expect(applied).toEqual([announced]);
  });

  it('refuses anything else with VALIDATION_FAILED and applies nothing', async () => {
    for (const command of [
      null,
      {},
      { event: event(), more: 1 },
      { event: { ...event(), type: EventType.CertificateRevoked } },
      { event: { ...event(), tenantId: randomUUID() } },
      { event: { ...event(), payload: { ...event().payload, sha256: 'x' } } },
    ]) {
      await expect(publication.crlAnnounced(command as CrlPublishedCommand)).rejects.toBeInstanceOf(CaError);
    }
    expect(applied).toEqual([]);
  });
});
