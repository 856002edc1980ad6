import { EventEnvelope } from '../common/event-envelope';
import { CertificateRevokedPayload } from '../issuance/certificate.events';

/**
 * Request/reply subjects answered by the revocation context (queue group `revocation`), asked only
 * by issuance: the direct path of a bulk revocation job's batches to the CRL
 * (docs/architecture.md#bulk-revocation-direct-path). The stream still brings every event; this
 * only makes the ledger, and so the CRL, keep pace with the job.
 */
export const RevocationPattern = {
  /** Record these committed `certificate.revoked` events (one job batch) and rebuild their CAs' CRLs. */
  RecordRevocations: 'revocation.certificates-revoked',
} as const;
export type RevocationPattern = (typeof RevocationPattern)[keyof typeof RevocationPattern];

/** Events in one message: a job batch (REVOCATION_BATCH in issuance), as the responder takes. */
export const MAX_DIRECT_REVOCATIONS = 256;

export interface RecordRevocationsCommand {
  /** Envelopes exactly as recorded in issuance's outbox (ids included), all of one tenant. */
  events: EventEnvelope<CertificateRevokedPayload>[];
}

export interface RecordRevocationsResult {
  /** How many were recorded now; the others were recorded before or are left to the stream. */
  recorded: number;
}

export type RevocationApi = {
  [RevocationPattern.RecordRevocations]: [RecordRevocationsCommand, RecordRevocationsResult];
};
