import { CertificateRevokedPayload, EventEnvelope, EventType, RevocationReasonCodes } from '@ca/contracts';
import { newEvent } from '@ca/messaging';
import type { IssuanceTables } from '../issuance-database.store';
import { RevocationRecord, revocationEventFields } from '../revocation-record';
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
  tables: Pick<IssuanceTables, 'certificateRevocations' | 'blockedKeys' | 'outbox'>,
  tenantId: string,
  certificateIds: readonly string[],
  revocation: RevocationRecord,
): Promise<BatchRevocation> {
  const unrevoked = await tables.certificateRevocations.lockUnrevoked(tenantId, certificateIds);
  if (unrevoked.size === 0) return { revoked: [], skipped: [...certificateIds], events: [] };
  const changed = await tables.certificateRevocations.revokeBatch(
    tenantId,
    [...unrevoked],
    revocation,
    needsKeys(revocation),
  );
  // In the order of the ids given, so the events' outbox order does not depend on the plan.
  const byId = new Map(changed.map((row) => [row.id, row]));
  const revoked = certificateIds.filter((id) => byId.has(id));
  const events: EventEnvelope<CertificateRevokedPayload>[] = [];
  for (const id of revoked) {
    const row = byId.get(id)!;
    if (row.certificateDer) {
      await blockKeyIfCompromised(
        tables.blockedKeys,
        { id, tenantId, certificateDer: row.certificateDer },
        revocation.revocationReasonCode,
      );
    }
    events.push(
      newEvent<CertificateRevokedPayload>(EventType.CertificateRevoked, {
        tenantId,
        certificateId: id,
        caId: row.caId,
        serialNumber: row.serialNumber,
        ...revocationEventFields(revocation),
        sequence: row.statusSequence,
      }),
    );
  }
  // One statement per few hundred events: a statement may bind at most 65,535 parameters.
  for (let i = 0; i < events.length; i += EVENTS_PER_INSERT) {
    await tables.outbox.insert(events.slice(i, i + EVENTS_PER_INSERT));
  }
  return { revoked, skipped: certificateIds.filter((id) => !byId.has(id)), events };
}

const EVENTS_PER_INSERT = 1000;

/** The DER is read only when the reason blocks the certificate's key (keyCompromise, RFC 5280 5.3.1). */
function needsKeys(revocation: RevocationRecord): boolean {
  return revocation.revocationReasonCode === RevocationReasonCodes.KeyCompromise;
}
