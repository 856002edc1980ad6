import { CrlEntryDifference } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/** What a correction changed in revocation's ledger. */
export interface LedgerCorrection {
  removed: number;
  added: number;
}

/**
 * Corrects the entries of one CA's `/crl` from a refusal of issuance, the owner of revocations
 * (crlEntryDifferences): an entry issuance does not record so (a forged or replayed
 * `certificate.revoked`, a release whose event has not arrived) goes, a revocation it records and
 * this ledger lacks (an event lost or still on its way) comes in as issuance states it. Counted in
 * `entries_removed`, so every replica's CrlEntriesCache reads the CA's entries again.
 */
export async function correctCaEntries(
  manager: EntityManager,
  tenantId: string,
  caId: string,
  differences: CrlEntryDifference[],
): Promise<LedgerCorrection> {
  const extra = differences.filter((d) => d.kind === 'extra').map((d) => d.serialHex);
  const [, removed]: [unknown[], number] = await manager.query(
    `DELETE FROM revocation.revoked_certificates WHERE ca_id = $1 AND ltrim(lower(serial_number), '0') = ANY($2::text[])`,
    [caId, extra],
  );
  let added = 0;
  let duplicates = 0;
  for (const d of differences) {
    if (d.kind !== 'missing') continue;
    // One entry per serial: a row of the same serial written otherwise (case, leading zeros) goes.
    const [, gone]: [unknown[], number] = await manager.query(
      `DELETE FROM revocation.revoked_certificates
        WHERE ca_id = $1 AND ltrim(lower(serial_number), '0') = ltrim(lower($2), '0') AND serial_number <> $2`,
      [caId, d.serialHex],
    );
    duplicates += gone;
    const rows: unknown[] = await manager.query(
      `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (ca_id, serial_number) DO UPDATE
         SET revocation_date = EXCLUDED.revocation_date, reason_code = EXCLUDED.reason_code,
             certificate_id = EXCLUDED.certificate_id, recorded_at = now()
         WHERE (revoked_certificates.revocation_date, revoked_certificates.reason_code, revoked_certificates.certificate_id)
               IS DISTINCT FROM (EXCLUDED.revocation_date, EXCLUDED.reason_code, EXCLUDED.certificate_id)
       RETURNING 1`,
      [tenantId, caId, d.serialHex, d.id, d.revokedAt, d.reasonCode],
    );
    added += rows.length;
  }
  if (removed + duplicates + added > 0) {
    await manager.query(
      'UPDATE revocation.crl_issuers SET entries_removed = entries_removed + 1 WHERE ca_id = $1',
      [caId],
    );
  }
  return { removed: removed + duplicates, added };
}

/** The same for a tenant's `root.crl`, whose entries are its revoked issuing CAs. */
export async function correctRootEntries(
  manager: EntityManager,
  tenantId: string,
  differences: CrlEntryDifference[],
): Promise<LedgerCorrection> {
  const extra = differences.filter((d) => d.kind === 'extra').map((d) => d.serialHex);
  const [, removed]: [unknown[], number] = await manager.query(
    `DELETE FROM revocation.revoked_cas WHERE tenant_id = $1 AND ltrim(lower(serial_number), '0') = ANY($2::text[])`,
    [tenantId, extra],
  );
  let added = 0;
  let duplicates = 0;
  for (const d of differences) {
    if (d.kind !== 'missing') continue;
    const [, gone]: [unknown[], number] = await manager.query(
      `DELETE FROM revocation.revoked_cas
        WHERE tenant_id = $1 AND ltrim(lower(serial_number), '0') = ltrim(lower($2), '0') AND serial_number <> $2`,
      [tenantId, d.serialHex],
    );
    duplicates += gone;
    const rows: unknown[] = await manager.query(
      `INSERT INTO revocation.revoked_cas (tenant_id, serial_number, ca_id, revocation_date, reason_code)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, serial_number) DO UPDATE
         SET revocation_date = EXCLUDED.revocation_date, reason_code = EXCLUDED.reason_code, ca_id = EXCLUDED.ca_id
         WHERE (revoked_cas.revocation_date, revoked_cas.reason_code, revoked_cas.ca_id)
               IS DISTINCT FROM (EXCLUDED.revocation_date, EXCLUDED.reason_code, EXCLUDED.ca_id)
       RETURNING 1`,
      [tenantId, d.serialHex, d.id, d.revokedAt, d.reasonCode],
    );
    added += rows.length;
  }
  return { removed: removed + duplicates, added };
}
