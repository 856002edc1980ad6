import { CaError, ErrorCode, FieldError, looksLikeHostName, namesOutsidePolicy } from '@ca/contracts';
import { DataSource } from 'typeorm';

/**
 * The tenants' issuance policies (`issuance.issuance_policies`, docs/api.md#issuance-policy). Read
 * from the table on every issuance, not cached: a policy set through one issuance replica must
 * hold at once for a certificate another replica signs.
 */
export class IssuancePolicies {
  constructor(private readonly dataSource: DataSource) {}

  /** The tenant's allowed suffixes, or null when it has no policy. */
  async suffixesOf(tenantId: string): Promise<string[] | null> {
    const rows: { allowed_dns_suffixes: string[] }[] = await this.dataSource.query(
      'SELECT allowed_dns_suffixes FROM issuance.issuance_policies WHERE tenant_id = $1',
      [tenantId],
    );
    return rows.length === 0 ? null : rows[0].allowed_dns_suffixes;
  }

  /** Replaces the tenant's policy (suffixes already validated and normalized). */
  async replace(tenantId: string, suffixes: string[], principal: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO issuance.issuance_policies (tenant_id, allowed_dns_suffixes, updated_at, updated_by)
       VALUES ($1, $2::text[], now(), $3)
       ON CONFLICT (tenant_id) DO UPDATE
         SET allowed_dns_suffixes = EXCLUDED.allowed_dns_suffixes,
             updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
      [tenantId, suffixes, principal],
    );
  }

  async remove(tenantId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM issuance.issuance_policies WHERE tenant_id = $1', [tenantId]);
  }

  /**
   * Refuses (400 NAME_NOT_ALLOWED_BY_POLICY, naming each name) a certificate whose DNS SANs, or
   * whose CN written like a host name, fall outside the tenant's policy. Issue and renew, v1 and
   * v2, all pass here, so a policy set after issuance also holds for renewals.
   */
  async assertAllows(
    tenantId: string,
    names: { commonName: string; dnsNames: readonly string[] },
  ): Promise<void> {
    const suffixes = await this.suffixesOf(tenantId);
    if (suffixes === null) return;
    const refused = namesOutsidePolicy(names.dnsNames, suffixes).map((name) => ({
      field: 'subjectAlternativeNames',
      name,
    }));
    const cn = names.commonName;
    const cnIsSan = names.dnsNames.some((name) => name.toLowerCase() === cn.toLowerCase());
    if (looksLikeHostName(cn) && !cnIsSan && namesOutsidePolicy([cn], suffixes).length > 0) {
      refused.unshift({ field: 'commonName', name: cn });
    }
    if (refused.length === 0) return;
    const errors: FieldError[] = refused.map(({ field, name }) => ({
      field,
      message: `"${name}" is not under any DNS suffix the tenant's issuance policy allows`,
    }));
    const listed = refused.map(({ name }) => `"${name}"`).join(', ');
    throw new CaError(
      ErrorCode.NameNotAllowedByPolicy,
      `The tenant's issuance policy does not allow ${listed}.`,
      errors,
    );
  }
}
