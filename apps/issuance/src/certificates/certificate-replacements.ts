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
import { IssuanceDatabase } from '../issuance-database.store';

const HEX = (max: number) => new RegExp(`^[0-9A-F]{1,${max}}$`);

/**
 * docs/api.md#renewal-information and docs/api.md#replace-now: the renewal windows of the tenant's
 * certificates (RFC 9773), the drill that pulls them forward for every leaf of a CA, and its count.
 */
export class CertificateReplacements {
  constructor(
    private readonly database: IssuanceDatabase,
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
    const rows = await this.database.tables.replacements.bySerial(query.tenantId, serial);
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
    const marked = await this.database.transaction(async (tables) => {
      const count = await tables.replacements.markLeaves(command.tenantId, caId, requestedAt);
      const event = await tables.outbox.record<ReplaceLeavesRequestedPayload>(
        EventType.ReplaceLeavesRequested,
        {
          tenantId: command.tenantId,
          caId,
          marked: count,
          requestedAt: requestedAt.toISOString(),
          requestedBy: command.principal,
        },
      );
      // Who asked, and why: the reason stays here (docs/api.md#replace-now), never in the event.
      await tables.replacements.recordRequest({
        eventId: event.id,
        tenantId: command.tenantId,
        caId,
        requestedAt,
        requestedBy: command.principal,
        reason: request.reason,
        marked: count,
      });
      return count;
    });
    this.onEventsRecorded();
    return { caId: command.caId, marked, requestedAt: requestedAt.toISOString() };
  }

  async replacement(query: ReplacementQuery): Promise<ReplacementProgress> {
    assertCommandFields(query, { tenantId: 'uuid', caId: 'uuid' });
    await this.assertTenantCa(query.tenantId, query.caId);
    return this.database.tables.replacements.progress(query.tenantId, query.caId);
  }

  private async assertTenantCa(tenantId: string, caId: string): Promise<void> {
    const known = await this.database.tables.replacements.hasCa(tenantId, caId);
    if (!known) throw CaError.notFound('No CA of this tenant has this id.');
  }
}
