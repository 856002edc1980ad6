import { CertificateRevokedPayload, EventEnvelope, EventType, RevocationReasonCodes } from '@ca/contracts';
import { insertEvents, newEvent } from '@ca/messaging';
import { EntityManager } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { RevocationRecord, revocationEventFields } from '../revocation-record';
import { SqlBlockedKeyStore } from './blocked-key.store';
import { blockKeyIfCompromised } from './blocked-keys';

/** What one batch did: the certificates it revoked, and those it left (revoked already, or not the tenant's). */
export interface BatchRevocation {
  revoked: string[];
  skipped: string[];
  events: EventEnvelope<CertificateRevokedPayload>[];
}

/**
 * Revokes many of one tenant's certificates inside the caller's transaction, each exactly as a
 * single revocation does (RevokeCertificateHandler): its row changed and locked, its status
 * sequence moved on, its key blocked on keyCompromise, its own `certificate.revoked` event; but
 * in a few statements for the whole batch instead of several per certificate. The rows are
 * locked in id order, as every batch locks them, so two batches never wait on each other in a cycle.
 */
export async function revokeInBatch(
  manager: EntityManager,
  tenantId: string,
  certificateIds: readonly string[],
  revocation: RevocationRecord,
): Promise<BatchRevocation> {
  const rows: { id: string; revoked: boolean }[] = await manager.query(
    `SELECT id, revoked_at IS NOT NULL AS revoked FROM issuance.certificates
      WHERE id = ANY($1::uuid[]) AND tenant_id = $2 ORDER BY id FOR UPDATE`,
    [certificateIds, tenantId],
  );
  const unrevoked = new Set(rows.filter((r) => !r.revoked).map((r) => r.id));
  if (unrevoked.size === 0) return { revoked: [], skipped: [...certificateIds], events: [] };
  const [changed]: [
    { id: string; ca_id: string; serial_number: string; status_sequence: number; certificate_der?: Buffer }[],
    number,
  ] = await manager.query(
    `UPDATE issuance.certificates
        SET revoked_at = $3, revocation_reason = $4, revocation_reason_code = $5, revoked_by = $6,
            status_sequence = status_sequence + 1
      WHERE id = ANY($1::uuid[]) AND tenant_id = $2 AND revoked_at IS NULL
      RETURNING id, ca_id, serial_number, status_sequence${needsKeys(revocation) ? ', certificate_der' : ''}`,
    [
      [...unrevoked],
      tenantId,
      revocation.revokedAt,
      revocation.revocationReason,
      revocation.revocationReasonCode,
      revocation.revokedBy,
    ],
  );
  // In the order of the ids given, so the events' outbox order does not depend on the plan.
  const byId = new Map(changed.map((row) => [row.id, row]));
  const revoked = certificateIds.filter((id) => byId.has(id));
  const events: EventEnvelope<CertificateRevokedPayload>[] = [];
  for (const id of revoked) {
    const row = byId.get(id)!;
    if (row.certificate_der) {
      await blockKeyIfCompromised(
        new SqlBlockedKeyStore(manager),
        { id, tenantId, certificateDer: row.certificate_der },
        revocation.revocationReasonCode,
      );
    }
    events.push(
      newEvent<CertificateRevokedPayload>(EventType.CertificateRevoked, {
        tenantId,
        certificateId: id,
        caId: row.ca_id,
        serialNumber: row.serial_number,
        ...revocationEventFields(revocation),
        sequence: Number(row.status_sequence),
      }),
    );
  }
  // One statement per few hundred events: a statement may bind at most 65,535 parameters.
  for (let i = 0; i < events.length; i += EVENTS_PER_INSERT) {
    await insertEvents(manager, ISSUANCE_SCHEMA, events.slice(i, i + EVENTS_PER_INSERT));
  }
  return { revoked, skipped: certificateIds.filter((id) => !byId.has(id)), events };
}

const EVENTS_PER_INSERT = 1000;

/** The DER is read only when the reason blocks the certificate's key (keyCompromise, RFC 5280 5.3.1). */
function needsKeys(revocation: RevocationRecord): boolean {
  return revocation.revocationReasonCode === RevocationReasonCodes.KeyCompromise;
}
