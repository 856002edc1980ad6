import { Logger } from '@nestjs/common';
import { EventEnvelope, RootRenewedPayload } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { crossCertificateProblem } from '@ca/pki';
import { DataSource } from 'typeorm';
import { OCSP_SCHEMA } from '../ocsp.schema';

const logger = new Logger('RenewedRoots');

/**
 * Records a tenant's new root (docs/api.md#renew-the-root) among its added CAs, as `role` root with
 * its cross certificate: from then on its certificate and cross certificate are served at
 * `ca/{caId}.*` and `ca/{caId}-cross.*`, its CRL is checked against it, and it gets a delegated
 * OCSP signer for the issuing CAs it signs. The bus is not trusted: the event is applied only when
 * envelope and payload name one tenant and the cross certificate verifies with the previous root
 * this responder holds for that tenant (the one made at initialization, or a root renewed
 * before). Returns whether it was recorded.
 */
export async function applyRootRenewed(
  dataSource: DataSource,
  event: EventEnvelope<RootRenewedPayload>,
): Promise<boolean> {
  const { tenantId, caId, certificateDer, notAfter, previousRootCaId, crossCertificateDer } = event.payload;
  let refusal: string | undefined;
  let recorded = false;
  await applyOnce(dataSource, OCSP_SCHEMA, event, async (manager) => {
    if (event.tenantId !== tenantId) {
      refusal = 'envelope and payload name different tenants';
      return;
    }
    // root_ca_id is unknown on rows older than per-CA paths: the signature check below decides.
    const previous: { der: Buffer }[] = await manager.query(
      `SELECT COALESCE(root_certificate_der, certificate_der) AS der FROM ocsp.ca_certificates
        WHERE tenant_id = $1 AND (root_ca_id = $2 OR root_ca_id IS NULL)
       UNION ALL
       SELECT certificate_der AS der FROM ocsp.added_cas WHERE tenant_id = $1 AND ca_id = $2 AND role = 'root'`,
      [tenantId, previousRootCaId],
    );
    const root = Buffer.from(certificateDer, 'base64');
    const cross = Buffer.from(crossCertificateDer, 'base64');
    refusal =
      previous.length === 0
        ? 'the previous root is not a root of this tenant'
        : crossCertificateProblem(previous[0].der, root, cross);
    if (refusal) return;
    await manager.query(
      `INSERT INTO ocsp.added_cas (ca_id, tenant_id, certificate_der, not_after, published_at, role, issuer_ca_id, cross_certificate_der)
       VALUES ($1, $2, $3, $4, $5, 'root', $6, $7) ON CONFLICT (ca_id) DO NOTHING`,
      [caId, tenantId, root, notAfter, event.occurredAt, previousRootCaId, cross],
    );
    recorded = true;
  });
  if (refusal) {
    logger.warn(
      { eventId: event.id, tenantId: event.tenantId, caId, reason: refusal },
      'ca.root-renewed refused',
    );
  }
  return recorded;
}
