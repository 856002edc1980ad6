import { EventEnvelope, RootRenewedPayload } from '@ca/contracts';
import { crossCertificateProblem } from '@ca/pki';
import { Injectable, Logger } from '@nestjs/common';
import { RevocationDatabase } from '../stores/revocation-database.store';

/**
 * docs/api.md#renew-the-root: registers a tenant's new root as a CRL issuer of its own (its CRL
 * lists the issuing CAs it signed once an operator revokes one; `ca.revoked` names it as their
 * issuer), with its own CRLNumber sequence (RFC 5280 5.2.3). The root it replaces keeps its
 * CRL. Checked before anything is recorded: envelope and payload name one tenant, the previous
 * root is one this context knows for that tenant, and its key signed the cross certificate of
 * exactly the new root's subject and key.
 */
@Injectable()
export class RenewedRootLedger {
  private readonly logger = new Logger('RenewedRootLedger');

  constructor(private readonly database: RevocationDatabase) {}

  /** Returns whether the new root is registered. */
  async register(event: EventEnvelope<RootRenewedPayload>): Promise<boolean> {
    const { tenantId, caId, certificateDer, notAfter, previousRootCaId, crossCertificateDer } = event.payload;
    let registered = false;
    let refusal: string | undefined;
    await this.database.applyOnce(event, async ({ issuers, rootIssuers }) => {
      if (event.tenantId !== tenantId) {
        refusal = 'envelope and payload name different tenants';
        return;
      }
      // The root of root.crl when the tenant has one, else the root that signs its leaves' CRL.
      const previous =
        (await rootIssuers.certificateOf(tenantId, previousRootCaId)) ??
        (await issuers.certificateOf(tenantId, previousRootCaId));
      if (!previous) {
        refusal = 'the previous root is not a root of this tenant';
        return;
      }
      refusal = crossCertificateProblem(
        previous,
        Buffer.from(certificateDer, 'base64'),
        Buffer.from(crossCertificateDer, 'base64'),
      );
      if (refusal) return;
      await issuers.register({
        tenantId,
        caId,
        certificateDer: Buffer.from(certificateDer, 'base64'),
        notAfter,
      });
      registered = true;
    });
    if (refusal)
      this.logger.warn(
        { eventId: event.id, tenantId: event.tenantId, caId, reason: refusal },
        'ca.root-renewed refused',
      );
    return registered;
  }
}
