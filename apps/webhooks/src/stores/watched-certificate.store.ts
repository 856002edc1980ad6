import { CertificateIssuedPayload } from '@ca/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';

/** A `webhooks.certificates` row: the read model of a certificate watched for expiry. */
export interface WatchedCertificate {
  certificate_id: string;
  tenant_id: string;
  serial_number: string;
  common_name: string | null;
  client_id: string | null;
  subject_alternative_names: string[];
  not_after: Date | string;
  revoked_at: Date | string | null;
}

/** A certificate due a notice, with the subscription it is due to (for an expiring one). */
export interface DueCertificate extends WatchedCertificate {
  subscription_id: string;
  revoked_at: null;
}

/**
 * `webhooks.certificates` and `webhooks.expiry_notices`: the certificates this context watches
 * for expiry (from the lifecycle events) and which expiry notices each subscription was given.
 */
export abstract class WatchedCertificateStore {
  /** Watches an issued certificate (an issue seen again keeps the row and takes its notAfter). */
  abstract issued(payload: CertificateIssuedPayload): Promise<WatchedCertificate>;
  /** issued for a run of issues in one statement: their rows, in the payloads' order. */
  abstract issuedMany(payloads: readonly CertificateIssuedPayload[]): Promise<WatchedCertificate[]>;
  /** The tenant's certificate `certificateId` was renewed by `renewedBy`. */
  abstract renewed(tenantId: string, certificateId: string, renewedBy: string): Promise<void>;
  /** Marks the certificate revoked; its row, or undefined when it is not watched. */
  abstract revoked(
    tenantId: string,
    certificateId: string,
    revokedAt: string,
  ): Promise<WatchedCertificate | undefined>;
  /** A released hold: not revoked any more. */
  abstract holdReleased(tenantId: string, certificateId: string): Promise<void>;
  /**
   * Up to `limit` (subscription, certificate) pairs that crossed a threshold of the subscription's
   * `expiringDays` at `now` and had no notice for it, each recorded as noticed (for every threshold
   * crossed) at once.
   */
  abstract claimExpiring(now: Date, limit: number): Promise<DueCertificate[]>;
  /**
   * Up to `limit` unrevoked certificates whose notAfter passed by `now` and whose expiry was not
   * announced, marked announced (rows another replica holds are skipped).
   */
  abstract claimExpired(now: Date, limit: number): Promise<WatchedCertificate[]>;
}

/** WatchedCertificate's columns, named: a prepared result never holds a table's `*`. */
const COLUMNS = `certificate_id, tenant_id, serial_number, common_name, client_id, subject_alternative_names,
  not_after, revoked_at`;

/**
 * Every event batch's issues in one prepared text (prepared-statements.ts), whatever their number:
 * arrays, the names each as a JSON array (an array of arrays has no unnest keeping rows apart).
 */
const ISSUED_MANY = prepared(
  `INSERT INTO webhooks.certificates
     (certificate_id, tenant_id, serial_number, common_name, client_id, subject_alternative_names, not_after)
   SELECT certificate_id, tenant_id, serial_number, common_name, client_id,
          ARRAY(SELECT jsonb_array_elements_text(names)), not_after
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[])
          AS c(certificate_id, tenant_id, serial_number, common_name, client_id, names, not_after)
   ON CONFLICT (certificate_id) DO UPDATE SET not_after = EXCLUDED.not_after
   RETURNING ${COLUMNS}`,
);

export class SqlWatchedCertificateStore extends WatchedCertificateStore {
  constructor(private readonly db: DataSource | EntityManager) {
    super();
  }

  async issued(p: CertificateIssuedPayload): Promise<WatchedCertificate> {
    const [row] = await this.issuedMany([p]);
    return row;
  }

  async issuedMany(payloads: readonly CertificateIssuedPayload[]): Promise<WatchedCertificate[]> {
    if (payloads.length === 0) return [];
    // One row per certificate: an upsert may not touch a row twice in one statement.
    const latest = [...new Map(payloads.map((p) => [p.certificateId.toLowerCase(), p])).values()];
    const rows = (await this.db.query(ISSUED_MANY, [
      latest.map((p) => p.certificateId),
      latest.map((p) => p.tenantId),
      latest.map((p) => p.serialNumber),
      latest.map((p) => p.commonName ?? null),
      latest.map((p) => p.clientId ?? null),
      latest.map((p) => JSON.stringify(p.subjectAlternativeNames ?? [])),
      latest.map((p) => p.notAfter),
    ])) as WatchedCertificate[];
    const byId = new Map(rows.map((row) => [row.certificate_id.toLowerCase(), row]));
    return payloads.map((p) => byId.get(p.certificateId.toLowerCase())!);
  }

  async renewed(tenantId: string, certificateId: string, renewedBy: string): Promise<void> {
    await this.db.query(
      'UPDATE webhooks.certificates SET renewed_by = $2 WHERE certificate_id = $1 AND tenant_id = $3',
      [certificateId, renewedBy, tenantId],
    );
  }

  async revoked(
    tenantId: string,
    certificateId: string,
    revokedAt: string,
  ): Promise<WatchedCertificate | undefined> {
    const [rows] = (await this.db.query(
      `UPDATE webhooks.certificates SET revoked_at = $3
       WHERE certificate_id = $1 AND tenant_id = $2 RETURNING *`,
      [certificateId, tenantId, revokedAt],
    )) as [WatchedCertificate[], number];
    return rows[0];
  }

  async holdReleased(tenantId: string, certificateId: string): Promise<void> {
    await this.db.query(
      'UPDATE webhooks.certificates SET revoked_at = NULL WHERE certificate_id = $1 AND tenant_id = $2',
      [certificateId, tenantId],
    );
  }

  async claimExpiring(now: Date, limit: number): Promise<DueCertificate[]> {
    return (await this.db.query(
      `WITH crossed AS (
         SELECT s.id AS subscription_id, c.certificate_id, t AS threshold_days
         FROM webhooks.subscriptions s
         JOIN webhooks.certificates c ON c.tenant_id = s.tenant_id
         CROSS JOIN LATERAL unnest(s.expiring_days) AS t
         WHERE s.deleted_at IS NULL AND 'certificate.expiring' = ANY(s.events)
           AND c.revoked_at IS NULL AND c.renewed_by IS NULL
           AND c.not_after > $1 AND c.not_after <= $1::timestamptz + t * interval '1 day'
           AND NOT EXISTS (SELECT 1 FROM webhooks.expiry_notices n
                           WHERE n.subscription_id = s.id AND n.certificate_id = c.certificate_id
                             AND n.threshold_days = t)
         LIMIT $2
       ), fresh AS (
         INSERT INTO webhooks.expiry_notices (subscription_id, certificate_id, threshold_days)
         SELECT * FROM crossed ON CONFLICT DO NOTHING
         RETURNING subscription_id, certificate_id
       )
       SELECT DISTINCT f.subscription_id, c.*
       FROM fresh f JOIN webhooks.certificates c ON c.certificate_id = f.certificate_id`,
      [now, limit],
    )) as DueCertificate[];
  }

  async claimExpired(now: Date, limit: number): Promise<WatchedCertificate[]> {
    const [rows] = (await this.db.query(
      `UPDATE webhooks.certificates SET expired_announced = true
       WHERE certificate_id IN (
         SELECT certificate_id FROM webhooks.certificates
         WHERE not_after <= $1 AND revoked_at IS NULL AND NOT expired_announced
         ORDER BY not_after LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [now, limit],
    )) as [WatchedCertificate[], number];
    return rows;
  }
}
