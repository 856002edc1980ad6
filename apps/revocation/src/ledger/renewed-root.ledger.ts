import { EventEnvelope, RootRenewedPayload } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { crossCertificateProblem } from '@ca/pki';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';

const logger = new Logger('RenewedRootLedger');

/**
 * docs/api.md#renew-the-root: registers a tenant's new root as a CRL issuer of its own (its CRL
 * lists the issuing CAs it signed once an operator revokes one; `ca.revoked` names it as their
 * issuer), with its own CRLNumber sequence (RFC 5280 5.2.3). The root it replaces keeps its
 * CRL. Checked before anything is recorded: envelope and payload name one tenant, the previous
 * root is one this context knows for that tenant, and its key signed the cross certificate of
 * exactly the new root's subject and key. Returns whether the new root is registered.
 */
export async function registerRenewedRoot(
  dataSource: DataSource,
  event: EventEnvelope<RootRenewedPayload>,
): Promise<boolean> {
  const { tenantId, caId, certificateDer, notAfter, previousRootCaId, crossCertificateDer } = event.payload;
  let registered = false;
  let refusal: string | undefined;
  await applyOnce(dataSource, REVOCATION_SCHEMA, event, async (manager) => {
    if (event.tenantId !== tenantId) {
      refusal = 'envelope and payload name different tenants';
      return;
    }
    const previous: { ca_certificate_der: Buffer }[] = await manager.query(
      `SELECT ca_certificate_der FROM revocation.root_crl_issuers WHERE tenant_id = $1 AND ca_id = $2
       UNION ALL
       SELECT ca_certificate_der FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2`,
      [tenantId, previousRootCaId],
    );
    if (previous.length === 0) {
      refusal = 'the previous root is not a root of this tenant';
      return;
    }
    refusal = crossCertificateProblem(
      previous[0].ca_certificate_der,
      Buffer.from(certificateDer, 'base64'),
      Buffer.from(crossCertificateDer, 'base64'),
    );
    if (refusal) return;
    await manager.query(
      `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after) VALUES ($1, $2, $3, $4)
       ON CONFLICT (ca_id) DO NOTHING`,
      [tenantId, caId, Buffer.from(certificateDer, 'base64'), notAfter],
    );
    registered = true;
  });
  if (refusal)
    logger.warn(
      { eventId: event.id, tenantId: event.tenantId, caId, reason: refusal },
      'ca.root-renewed refused',
    );
  return registered;
}
