import { ReplacementProgress } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/** A leaf's successor: the newest certificate issued as its renewal or ACME replacement. */
const SUCCESSOR = `(SELECT s.id FROM issuance.certificates s WHERE s.renewed_from = c.id
                    ORDER BY s.issued_at DESC LIMIT 1)`;

/** A certificate as its renewal information (RFC 9773) needs it. */
export interface RenewalInfoRow {
  id: string;
  serial_number: string;
  certificate_der: Buffer;
  not_before: Date;
  not_after: Date;
  replace_after: Date | null;
  issued_by: string | null;
  dns_names: string[];
  revoked_at: Date | null;
  successor_id: string | null;
}

/** Who asked to replace a CA's leaves now, and why (docs/api.md#replace-now). */
export interface ReplaceLeavesRequestRow {
  eventId: string;
  tenantId: string;
  caId: string;
  requestedAt: Date;
  requestedBy: string;
  reason: string;
  marked: number;
}

/**
 * The renewal windows of `issuance.certificates` (`replace_after`), the drill that pulls them
 * forward for a CA's leaves with its requests in `issuance.replace_leaves_requests`, and its count.
 */
export abstract class ReplacementStore {
  /** The tenant's certificates with this serial (one per CA at most). */
  abstract bySerial(tenantId: string, serialNumber: string): Promise<RenewalInfoRow[]>;
  /** Whether the CA is the tenant's. */
  abstract hasCa(tenantId: string, caId: string): Promise<boolean>;
  /** Every Active leaf of the CA without a window asked for gets `at`; how many. */
  abstract markLeaves(tenantId: string, caId: string, at: Date): Promise<number>;
  abstract recordRequest(request: ReplaceLeavesRequestRow): Promise<void>;
  /** The CA's leaves asked to be replaced: all, replaced, and still to replace. */
  abstract progress(tenantId: string, caId: string): Promise<ReplacementProgress>;
}

export class SqlReplacementStore extends ReplacementStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  bySerial(tenantId: string, serialNumber: string): Promise<RenewalInfoRow[]> {
    return this.db.query(
      `SELECT c.id, c.serial_number, c.certificate_der, c.not_before, c.not_after, c.replace_after,
              c.issued_by, c.dns_names, c.revoked_at, ${SUCCESSOR} AS successor_id
         FROM issuance.certificates c WHERE c.tenant_id = $1 AND c.serial_number = $2`,
      [tenantId, serialNumber],
    );
  }

  async hasCa(tenantId: string, caId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      'SELECT 1 FROM issuance.certificate_authorities WHERE id = $1 AND tenant_id = $2',
      [caId.toLowerCase(), tenantId],
    );
    return rows.length > 0;
  }

  async markLeaves(tenantId: string, caId: string, at: Date): Promise<number> {
    const [row]: { marked: number }[] = await this.db.query(
      `WITH marked AS (
           UPDATE issuance.certificates SET replace_after = $3
            WHERE tenant_id = $1 AND ca_id = $2 AND revoked_at IS NULL AND not_after > $3
              AND replace_after IS NULL
           RETURNING 1)
         SELECT count(*)::int AS marked FROM marked`,
      [tenantId, caId, at],
    );
    return row.marked;
  }

  async recordRequest(request: ReplaceLeavesRequestRow): Promise<void> {
    await this.db.query(
      `INSERT INTO issuance.replace_leaves_requests
           (event_id, tenant_id, ca_id, requested_at, requested_by, reason, marked)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        request.eventId,
        request.tenantId,
        request.caId,
        request.requestedAt,
        request.requestedBy,
        request.reason,
        request.marked,
      ],
    );
  }

  async progress(tenantId: string, caId: string): Promise<ReplacementProgress> {
    const [row]: ReplacementProgress[] = await this.db.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE ${SUCCESSOR} IS NOT NULL)::int AS replaced,
              count(*) FILTER (WHERE ${SUCCESSOR} IS NULL AND c.revoked_at IS NULL AND c.not_after > now())::int
                AS remaining
         FROM issuance.certificates c
        WHERE c.tenant_id = $1 AND c.ca_id = $2 AND c.replace_after IS NOT NULL`,
      [tenantId, caId],
    );
    return { total: row.total, replaced: row.replaced, remaining: row.remaining };
  }
}
