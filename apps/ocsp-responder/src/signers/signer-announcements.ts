import { Logger } from '@nestjs/common';
import { EventEnvelope, OcspSignerCertifiedPayload } from '@ca/contracts';
import { ocspMetrics } from '@ca/observability';
import { DataSource } from 'typeorm';

/**
 * Checks each `ocsp-signer.certified` against the keys this responder asked issuance to certify
 * (ocsp.requested_signers, written before asking): a signer certified for any other key was asked
 * for by someone else holding the responder's bus password, and can sign OCSP answers for the
 * tenant until it expires. It is reported (error log, `ca_ocsp_unrequested_signers_total`) for an
 * operator to act on (docs/security.md, "OCSP signer certificates"). Returns whether it was ours.
 */
export class SignerAnnouncements {
  private readonly logger = new Logger('SignerAnnouncements');

  constructor(private readonly dataSource: DataSource) {}

  async check(event: EventEnvelope<OcspSignerCertifiedPayload>): Promise<boolean> {
    const { tenantId, caId, serialNumber, publicKeySha256, notAfter } = event.payload;
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM ocsp.requested_signers WHERE public_key_sha256 = $1 AND tenant_id = $2',
      [publicKeySha256.toLowerCase(), tenantId],
    );
    if (rows.length > 0) return true;
    ocspMetrics.unrequestedSignersTotal.inc();
    this.logger.error(
      { tenantId, caId, serialNumber, publicKeySha256, notAfter },
      'OCSP signer certified that this responder did not ask for: someone else holds its bus password',
    );
    return false;
  }
}
