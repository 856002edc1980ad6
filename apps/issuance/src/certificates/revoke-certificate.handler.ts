import {
  CA_ONLY_REVOCATION_REASON_CODES,
  CaError,
  CertificateRevokedPayload,
  EventType,
  MAX_PUBLISHED_EVENTS,
  RevocationReasonCodes,
  RevokeCertificateCommand,
  RevokeCertificateRequest,
  RevokeCertificateResult,
  assertCommandFields,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { IssuanceDatabase, IssuanceTables } from '../issuance-database.store';
import { revocationEventFields, revocationNow } from '../revocation-record';
import { blockKeyIfCompromised } from './blocked-keys';
import { findTenantCertificate } from './certificate.repository';
import { ResponderPublication } from '../publication/responder-publication';
import { RevocationLedgerFeed } from '../publication/revocation-ledger-feed';
import { BatchRevocation, revokeInBatch } from './revoke-in-batch';

/** Many of one tenant's certificates to revoke alike (a bulk revocation job's batch). */
export interface RevokeBatchCommand {
  tenantId: string;
  principal: string;
  certificateIds: readonly string[];
  /** Checked when the job was made (RevokeMatchingHandler), as a single revocation checks it. */
  reason: string;
  reasonCodeNumber: number;
}

/**
 * docs/api.md#revoke-a-certificate: Active (or Expired) → Revoked, once. The row is locked so two
 * concurrent revocations cannot both succeed; the change and `certificate.revoked` commit together.
 */
export class RevokeCertificateHandler {
  constructor(
    private readonly database: IssuanceDatabase,
    private readonly onEventsRecorded: () => void,
    private readonly publication?: ResponderPublication,
    /** A batch's direct path to the CRL (executeBatch only; a single revocation keeps the stream's). */
    private readonly ledgerFeed?: RevocationLedgerFeed,
  ) {}

  /**
   * `inTransaction`: more work that must commit with the revocation or not at all (a bulk
   * revocation job marks its item done there, so a crash can never revoke one twice).
   */
  async execute(
    command: RevokeCertificateCommand,
    inTransaction?: (tables: IssuanceTables) => Promise<void>,
  ): Promise<RevokeCertificateResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', certificateId: 'uuid' });
    await findTenantCertificate(this.database.tables.certificates, command.tenantId, command.certificateId);
    const request = await validateDto(RevokeCertificateRequest, command.request);
    // Every row of `certificates` is an end-entity certificate (CA certificates live in
    // certificate_authorities), so the CA-only reasons of RFC 5280 5.3.1 never apply here.
    if (request.reasonCode && CA_ONLY_REVOCATION_REASON_CODES.includes(request.reasonCode)) {
      throw CaError.validation([
        {
          field: 'reasonCode',
          message: `${request.reasonCode} is for CA and attribute-authority certificates (RFC 5280 5.3.1), not end-entity certificates`,
        },
      ]);
    }
    const revocation = revocationNow(
      request.reason,
      RevocationReasonCodes[request.reasonCode ?? 'Unspecified'],
      command.principal,
    );
    const result = await this.database.transaction(async (tables) => {
      const certificate = await findTenantCertificate(
        tables.certificates,
        command.tenantId,
        command.certificateId,
        {
          lock: true,
        },
      );
      if (certificate.revokedAt) throw CaError.conflict('This certificate is already revoked.');
      await tables.certificateRevocations.revoke(certificate.id, command.tenantId, revocation);
      await blockKeyIfCompromised(tables.blockedKeys, certificate, revocation.revocationReasonCode);
      const event = await tables.outbox.record<CertificateRevokedPayload>(EventType.CertificateRevoked, {
        tenantId: certificate.tenantId,
        certificateId: certificate.id,
        caId: certificate.caId,
        serialNumber: certificate.serialNumber,
        ...revocationEventFields(revocation),
        sequence: await tables.certificates.nextStatusSequence(certificate.id),
      });
      await inTransaction?.(tables);
      return { certificateId: certificate.id, revokedAt: revocation.revokedAt.toISOString(), event };
    });
    this.onEventsRecorded();
    // Recorded either way; published says whether OCSP already answers revoked (else it will once
    // the responder is back: the event is in the outbox).
    const published = (await this.publication?.published([result.event], 'revocation')) ?? false;
    return { certificateId: result.certificateId, revokedAt: result.revokedAt, published };
  }

  /**
   * A batch of revocations in one transaction (revokeInBatch): each certificate revoked, evented
   * and blocked as `execute` does it, those revoked already or not the tenant's left alone; then
   * one publication to the responder for the whole batch instead of one per certificate, and at
   * the same time the batch to revocation for its CRL (RevocationLedgerFeed; never waited on for
   * the outcome). `inTransaction` commits with the batch, told what it revoked and what it left.
   *
   * Returns once the batch has committed; `delivered` settles when the responder has confirmed it
   * (true) or not (false: the outbox brings it) and the ledger has been sent it. The delivery
   * starts once `after` (the previous batch's) has settled, so the responder and the ledger get a
   * job's batches one at a time and in order, while the next batch's transaction runs.
   */
  async executeBatch(
    command: RevokeBatchCommand,
    inTransaction: (tables: IssuanceTables, outcome: BatchRevocation) => Promise<void>,
    after?: Promise<unknown>,
  ): Promise<BatchRevocation & { delivered: Promise<boolean> }> {
    const revocation = revocationNow(command.reason, command.reasonCodeNumber, command.principal);
    const outcome = await this.database.transaction(async (tables) => {
      const done = await revokeInBatch(tables, command.tenantId, command.certificateIds, revocation);
      await inTransaction(tables, done);
      return done;
    });
    if (outcome.events.length === 0) return { ...outcome, delivered: Promise.resolve(true) };
    this.onEventsRecorded();
    const delivered = (after ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.deliver(outcome.events));
    return { ...outcome, delivered };
  }

  /** A committed batch to the responder and, beside it, to the CRL's ledger; never rejects. */
  private async deliver(events: BatchRevocation['events']): Promise<boolean> {
    // The CRL's direct path beside the responder's publications: one batch costs the longer of the two.
    const ledger = this.ledgerFeed?.send(events);
    // As many events at once as the responder takes in one publication (one for a job's batch).
    let published = true;
    for (let i = 0; i < events.length; i += MAX_PUBLISHED_EVENTS) {
      const slice = events.slice(i, i + MAX_PUBLISHED_EVENTS);
      published = ((await this.publication?.published(slice, 'revocation')) ?? false) && published;
    }
    await ledger;
    return published;
  }
}
