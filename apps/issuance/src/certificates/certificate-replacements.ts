import {
  CaError,
  EventType,
  RenewalInfo,
  RenewalInfoQuery,
  ReplaceLeavesCommand,
  ReplaceLeavesRequest,
  ReplaceLeavesRequestedPayload,
  ReplaceLeavesResult,
  ReplacementProgress,
  ReplacementQuery,
  assertCommandFields,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { parseCertificate, renewalWindow } from '@ca/pki';
import { recordEvent } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

const HEX = (max: number) => new RegExp(`^[0-9A-F]{1,${max}}$`);

/** A leaf's successor: the newest certificate issued as its renewal or ACME replacement. */
const SUCCESSOR = `(SELECT s.id FROM issuance.certificates s WHERE s.renewed_from = c.id
                    ORDER BY s.issued_at DESC LIMIT 1)`;

/**
 * docs/api.md#renewal-information and docs/api.md#replace-now: the renewal windows of the tenant's
 * certificates (RFC 9773), the drill that pulls them forward for every leaf of a CA, and its count.
 */
export class CertificateReplacements {
  constructor(
    private readonly dataSource: DataSource,
    /** The outbox has a new event to publish. */
    private readonly onEventsRecorded: () => void = () => undefined,
  ) {}

  /** acme's renewalInfo: the certificate with this serial whose AKI names this key; else NOT_FOUND. */
  async renewalInfo(query: RenewalInfoQuery): Promise<RenewalInfo> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const { authorityKeyIdentifierHex: aki, serialNumberHex: serial } = query;
    if (
      typeof aki !== 'string' ||
      !HEX(128).test(aki) ||
      typeof serial !== 'string' ||
      !HEX(40).test(serial)
    ) {
      throw CaError.validation([
        { field: 'certId', message: 'must be an AKI key identifier and a serial in hex' },
      ]);
    }
    const rows: {
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
    }[] = await this.dataSource.query(
      `SELECT c.id, c.serial_number, c.certificate_der, c.not_before, c.not_after, c.replace_after,
              c.issued_by, c.dns_names, c.revoked_at, ${SUCCESSOR} AS successor_id
         FROM issuance.certificates c WHERE c.tenant_id = $1 AND c.serial_number = $2`,
      [query.tenantId, serial],
    );
    // Serials are unique per CA only: the AKI tells which CA's certificate is meant.
    const row = rows.find((r) => parseCertificate(r.certificate_der).authorityKeyIdentifierHex === aki);
    if (!row) throw CaError.notFound('No certificate of this tenant has this certID.');
    const window = renewalWindow({
      serialNumberHex: row.serial_number,
      notBefore: row.not_before,
      notAfter: row.not_after,
      replaceAfter: row.replace_after,
    });
    return {
      certificateId: row.id,
      suggestedWindow: { start: window.start.toISOString(), end: window.end.toISOString() },
      issuedBy: row.issued_by,
      dnsNames: row.dns_names,
      ...(row.successor_id ? { successorId: row.successor_id } : {}),
      revoked: row.revoked_at !== null,
    };
  }

  /**
   * Every Active leaf of the CA gets a window that has already begun; one asked earlier keeps its
   * own. Announced by `ca.replace-leaves-requested` (a webhook event), in the same transaction.
   */
  async replaceLeaves(command: ReplaceLeavesCommand): Promise<ReplaceLeavesResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', caId: 'uuid' });
    const request = await validateDto(ReplaceLeavesRequest, command.request);
    await this.assertTenantCa(command.tenantId, command.caId);
    const requestedAt = new Date();
    const caId = command.caId.toLowerCase();
    const marked = await this.dataSource.transaction(async (manager) => {
      const [row]: { marked: number }[] = await manager.query(
        `WITH marked AS (
           UPDATE issuance.certificates SET replace_after = $3
            WHERE tenant_id = $1 AND ca_id = $2 AND revoked_at IS NULL AND not_after > $3
              AND replace_after IS NULL
           RETURNING 1)
         SELECT count(*)::int AS marked FROM marked`,
        [command.tenantId, caId, requestedAt],
      );
      const event = await recordEvent<ReplaceLeavesRequestedPayload>(
        manager,
        ISSUANCE_SCHEMA,
        EventType.ReplaceLeavesRequested,
        {
          tenantId: command.tenantId,
          caId,
          marked: row.marked,
          requestedAt: requestedAt.toISOString(),
          requestedBy: command.principal,
        },
      );
      // Who asked, and why: the reason stays here (docs/api.md#replace-now), never in the event.
      await manager.query(
        `INSERT INTO issuance.replace_leaves_requests
           (event_id, tenant_id, ca_id, requested_at, requested_by, reason, marked)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [event.id, command.tenantId, caId, requestedAt, command.principal, request.reason, row.marked],
      );
      return row.marked;
    });
    this.onEventsRecorded();
    return { caId: command.caId, marked, requestedAt: requestedAt.toISOString() };
  }

  async replacement(query: ReplacementQuery): Promise<ReplacementProgress> {
    assertCommandFields(query, { tenantId: 'uuid', caId: 'uuid' });
    await this.assertTenantCa(query.tenantId, query.caId);
    const [row]: ReplacementProgress[] = await this.dataSource.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE ${SUCCESSOR} IS NOT NULL)::int AS replaced,
              count(*) FILTER (WHERE ${SUCCESSOR} IS NULL AND c.revoked_at IS NULL AND c.not_after > now())::int
                AS remaining
         FROM issuance.certificates c
        WHERE c.tenant_id = $1 AND c.ca_id = $2 AND c.replace_after IS NOT NULL`,
      [query.tenantId, query.caId],
    );
    return { total: row.total, replaced: row.replaced, remaining: row.remaining };
  }

  private async assertTenantCa(tenantId: string, caId: string): Promise<void> {
    const rows = await this.dataSource.query(
      'SELECT 1 FROM issuance.certificate_authorities WHERE id = $1 AND tenant_id = $2',
      [caId.toLowerCase(), tenantId],
    );
    if (rows.length === 0) throw CaError.notFound('No CA of this tenant has this id.');
  }
}
