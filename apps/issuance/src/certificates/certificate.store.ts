import { EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';
import { CertificateEntity } from './certificate.entity';

/** A certificate row to insert (its revocation and replacement columns start empty). */
export type NewCertificate = Omit<
  CertificateEntity,
  'revokedAt' | 'revocationReason' | 'revocationReasonCode' | 'revokedBy' | 'replaceAfter'
>;

/** A revoked certificate as a CRL lists it. */
export interface RevokedCertificate {
  id: string;
  serialNumber: string;
  revokedAt: Date;
  reasonCode: number | null;
}

/** A certificate as `GET /v1/certificates` lists it. */
export interface CertificateSummaryRow {
  id: string;
  tenant_id: string;
  client_id: string;
  common_name: string;
  serial_number: string;
  issued_at: Date;
  not_after: Date;
  revoked_at: Date | null;
}

const SUMMARY_COLUMNS =
  'id, tenant_id, client_id, common_name, serial_number, issued_at, not_after, revoked_at';

const COLUMNS = `id, tenant_id, ca_id, serial_number, client_id, common_name, organization,
  organizational_unit, country, certificate_der, usage, dns_names, must_staple, custom_extensions,
  not_before, not_after, issued_at, renewed_from, issued_by, key_from_csr, source`;

/**
 * One text for a batch of any size (an array per column, not a VALUES row per certificate), so it
 * is prepared once (prepared-statements.ts). The DNS names travel as a JSON array each: an array
 * of arrays has no unnest that keeps the rows apart.
 */
const INSERT_CERTIFICATES = prepared(
  `INSERT INTO issuance.certificates (${COLUMNS})
   SELECT id, tenant_id, ca_id, serial_number, client_id, common_name, organization,
          organizational_unit, country, certificate_der, usage,
          ARRAY(SELECT jsonb_array_elements_text(dns_names)), must_staple, custom_extensions,
          not_before, not_after, issued_at, renewed_from, issued_by, key_from_csr, source
     FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[],
                 $8::text[], $9::text[], $10::bytea[], $11::text[], $12::jsonb[], $13::boolean[],
                 $14::jsonb[], $15::timestamptz[], $16::timestamptz[], $17::timestamptz[], $18::uuid[],
                 $19::text[], $20::boolean[], $21::text[]) AS c(${COLUMNS})`,
);

/** `issuance.certificates`: every certificate issued, with its revocation. */
export abstract class CertificateStore {
  /**
   * Inserts them in one statement (a duplicate serial fails it as a whole with the driver's
   * unique violation). Must run in the transaction that also records their events.
   */
  abstract insert(certificates: readonly NewCertificate[]): Promise<void>;
  /**
   * Moves a certificate's status sequence one on (in the transaction that changes its status, with
   * the row locked) and returns it: the responder applies a change only over a lower one, so a late
   * or replayed event never moves the status back (docs/architecture.md#certificate-status-sequence).
   */
  abstract nextStatusSequence(certificateId: string): Promise<number>;
  /** The certificate (any tenant's), locked until the transaction ends with `lock`. */
  abstract byId(certificateId: string, options?: { lock?: boolean }): Promise<CertificateEntity | null>;
  /** Whether a certificate names this one as its predecessor (renewal or ACME `replaces`). */
  abstract hasSuccessor(certificateId: string): Promise<boolean>;
  /** The newest certificate naming this one as its predecessor. */
  abstract newestSuccessor(certificateId: string): Promise<string | undefined>;
  /** The tenant's certificates, newest first (ties by id, newest too), summary columns only. */
  abstract summariesOf(tenantId: string): Promise<CertificateSummaryRow[]>;
  /** The CA's revoked certificates, for the tenant's CRL of it. */
  abstract revokedUnder(caId: string, tenantId: string): Promise<RevokedCertificate[]>;
}

export class SqlCertificateStore extends CertificateStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async insert(certificates: readonly NewCertificate[]): Promise<void> {
    if (certificates.length === 0) return;
    const column = <T>(value: (c: NewCertificate) => T) => certificates.map(value);
    await this.db.query(INSERT_CERTIFICATES, [
      column((c) => c.id),
      column((c) => c.tenantId),
      column((c) => c.caId),
      column((c) => c.serialNumber),
      column((c) => c.clientId),
      column((c) => c.commonName),
      column((c) => c.organization),
      column((c) => c.organizationalUnit),
      column((c) => c.country),
      column((c) => c.certificateDer),
      column((c) => c.usage),
      column((c) => JSON.stringify(c.dnsNames)),
      column((c) => c.mustStaple),
      column((c) => JSON.stringify(c.customExtensions)),
      column((c) => c.notBefore),
      column((c) => c.notAfter),
      column((c) => c.issuedAt),
      column((c) => c.renewedFrom),
      column((c) => c.issuedBy),
      column((c) => c.keyFromCsr),
      column((c) => c.source),
    ]);
  }

  async nextStatusSequence(certificateId: string): Promise<number> {
    const rows: [{ status_sequence: number }[], number] | { status_sequence: number }[] = await this.db.query(
      `UPDATE issuance.certificates SET status_sequence = status_sequence + 1 WHERE id = $1
     RETURNING status_sequence`,
      [certificateId],
    );
    // TypeORM answers an UPDATE … RETURNING on Postgres as [rows, affected].
    const returned = Array.isArray(rows[0])
      ? (rows[0] as { status_sequence: number }[])
      : (rows as { status_sequence: number }[]);
    return Number(returned[0].status_sequence);
  }

  byId(certificateId: string, options: { lock?: boolean } = {}): Promise<CertificateEntity | null> {
    return this.db.findOne(CertificateEntity, {
      where: { id: certificateId },
      ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  async hasSuccessor(certificateId: string): Promise<boolean> {
    const [successor] = await this.db.query(
      'SELECT 1 FROM issuance.certificates WHERE renewed_from = $1 LIMIT 1',
      [certificateId],
    );
    return successor !== undefined;
  }

  async newestSuccessor(certificateId: string): Promise<string | undefined> {
    const [successor]: { id: string }[] = await this.db.query(
      'SELECT id FROM issuance.certificates WHERE renewed_from = $1 ORDER BY issued_at DESC LIMIT 1',
      [certificateId],
    );
    return successor?.id;
  }

  summariesOf(tenantId: string): Promise<CertificateSummaryRow[]> {
    return this.db.query(
      `SELECT ${SUMMARY_COLUMNS} FROM issuance.certificates WHERE tenant_id = $1 ORDER BY issued_at DESC, id DESC`,
      [tenantId],
    );
  }

  async revokedUnder(caId: string, tenantId: string): Promise<RevokedCertificate[]> {
    const rows: {
      id: string;
      serial_number: string;
      revoked_at: Date;
      revocation_reason_code: number | null;
    }[] = await this.db.query(
      `SELECT id, serial_number, revoked_at, revocation_reason_code FROM issuance.certificates
          WHERE ca_id = $1 AND tenant_id = $2 AND revoked_at IS NOT NULL`,
      [caId, tenantId],
    );
    return rows.map((row) => ({
      id: row.id,
      serialNumber: row.serial_number,
      revokedAt: row.revoked_at,
      reasonCode: row.revocation_reason_code,
    }));
  }
}
