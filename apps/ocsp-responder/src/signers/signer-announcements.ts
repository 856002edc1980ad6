import { Logger } from '@nestjs/common';
import { EventEnvelope, OcspSignerCertifiedPayload } from '@ca/contracts';
import { ocspMetrics } from '@ca/observability';
import { RequestedSignerStore } from './requested-signer.store';

/**
 * Checks each `ocsp-signer.certified` against the keys this responder asked issuance to certify
 * (ocsp.requested_signers, written before asking): a signer certified for any other key was asked
 * for by someone else holding the responder's bus password, and can sign OCSP answers for the
 * tenant until it expires. It is reported (error log, `ca_ocsp_unrequested_signers_total`) for an
 * operator to act on (docs/security.md, "OCSP signer certificates"). Returns whether it was ours.
 */
export class SignerAnnouncements {
  private readonly logger = new Logger('SignerAnnouncements');

  constructor(private readonly requested: RequestedSignerStore) {}

  async check(event: EventEnvelope<OcspSignerCertifiedPayload>): Promise<boolean> {
    const { tenantId, caId, serialNumber, publicKeySha256, notAfter } = event.payload;
    if (await this.requested.wasRequested(publicKeySha256.toLowerCase(), tenantId)) return true;
    ocspMetrics.unrequestedSignersTotal.inc();
    this.logger.error(
      { tenantId, caId, serialNumber, publicKeySha256, notAfter },
      'OCSP signer certified that this responder did not ask for: someone else holds its bus password',
    );
    return false;
  }
}
