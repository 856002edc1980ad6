import { Logger } from '@nestjs/common';
import {
  CertificateRevokedPayload,
  EventEnvelope,
  MAX_DIRECT_REVOCATIONS,
  PUBLICATION_CONFIRM_MS,
  RevocationApi,
  RevocationPattern,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { publicationMetrics } from '@ca/observability';

/**
 * The direct path of a bulk revocation job's batches to the CRL
 * (docs/architecture.md#bulk-revocation-direct-path): after a batch commits, its
 * `certificate.revoked` events go to a revocation replica, which records them in one transaction
 * and rebuilds the CRL, instead of waiting for the tenant's partition of the stream, which hands
 * revocation one event at a time. Never an error for the job: without an answer in time it is
 * logged and counted, and the stream, the guaranteed path, still brings every event (the
 * revocation inbox applies each once, whichever comes first).
 */
export class RevocationLedgerFeed {
  private readonly logger = new Logger('RevocationLedgerFeed');

  constructor(private readonly revocation: RpcClient<RevocationApi> | undefined) {}

  /** Resolves whether revocation recorded the batch (never rejects). */
  async send(events: readonly EventEnvelope<CertificateRevokedPayload>[]): Promise<boolean> {
    if (!this.revocation || events.length === 0) return events.length === 0;
    let confirmed = true;
    for (let i = 0; i < events.length; i += MAX_DIRECT_REVOCATIONS) {
      const slice = events.slice(i, i + MAX_DIRECT_REVOCATIONS);
      try {
        await this.revocation.send(
          RevocationPattern.RecordRevocations,
          { events: slice },
          { timeoutMs: PUBLICATION_CONFIRM_MS },
        );
        publicationMetrics.publicationsTotal.inc({ kind: 'crl-ledger', outcome: 'confirmed' }, slice.length);
      } catch (error) {
        confirmed = false;
        publicationMetrics.publicationsTotal.inc(
          { kind: 'crl-ledger', outcome: 'unconfirmed' },
          slice.length,
        );
        this.logger.warn(
          { err: error, tenantId: slice[0].tenantId, events: slice.length },
          'revocation did not record a bulk revocation batch directly; the stream brings it',
        );
      }
    }
    return confirmed;
  }
}
