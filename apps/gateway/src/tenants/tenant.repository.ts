import { DataSource } from 'typeorm';

export type TenantStatus = 'active' | 'suspended';

/** A row of gateway.tenants. Null limits mean the deployment's defaults. */
export interface TenantRecord {
  tenantId: string;
  status: TenantStatus;
  certificateLimit: number | null;
  auditRetentionDays: number | null;
  createdAt: Date;
}

interface TenantRow {
  tenant_id: string;
  status: TenantStatus;
  certificate_limit: number | null;
  audit_retention_days: number | null;
  created_at: Date;
}

const COLUMNS = 'tenant_id, status, certificate_limit, audit_retention_days, created_at';

/** gateway.tenants: a tenant is created on first use (a token of it, or an operator command). */
export class TenantRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(tenantId: string): Promise<TenantRecord | undefined> {
    const [row]: TenantRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM gateway.tenants WHERE tenant_id = $1`,
      [tenantId],
    );
    return row ? toRecord(row) : undefined;
  }

  async findOrCreate(tenantId: string): Promise<TenantRecord> {
    const existing = await this.find(tenantId);
    if (existing) return existing;
    await this.dataSource.query(
      'INSERT INTO gateway.tenants (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING',
      [tenantId],
    );
    return (await this.find(tenantId))!;
  }

  setStatus(tenantId: string, status: TenantStatus): Promise<TenantRecord> {
    return this.upsert(tenantId, 'status', status);
  }

  setCertificateLimit(tenantId: string, limit: number | null): Promise<TenantRecord> {
    return this.upsert(tenantId, 'certificate_limit', limit);
  }

  setAuditRetentionDays(tenantId: string, days: number | null): Promise<TenantRecord> {
    return this.upsert(tenantId, 'audit_retention_days', days);
  }

  private async upsert(
    tenantId: string,
    column: 'status' | 'certificate_limit' | 'audit_retention_days',
    value: string | number | null,
  ): Promise<TenantRecord> {
    const [row]: TenantRow[] = await this.dataSource.query(
      `INSERT INTO gateway.tenants AS t (tenant_id, ${column}) VALUES ($1, $2)
       ON CONFLICT (tenant_id) DO UPDATE SET ${column} = EXCLUDED.${column}, updated_at = now()
       RETURNING ${COLUMNS}`,
      [tenantId, value],
    );
    return toRecord(row);
  }
}

function toRecord(row: TenantRow): TenantRecord {
  return {
    tenantId: row.tenant_id,
    status: row.status,
    certificateLimit: row.certificate_limit === null ? null : Number(row.certificate_limit),
    auditRetentionDays: row.audit_retention_days === null ? null : Number(row.audit_retention_days),
    createdAt: new Date(row.created_at),
  };
}
