import { EventType, TenantUpdatedPayload } from '@ca/contracts';
import { recordEvent } from '@ca/messaging';
import { DataSource, EntityManager } from 'typeorm';
import { GATEWAY_SCHEMA } from '../gateway.schema';

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
  updated_at: Date;
}

export interface TenantStoreOptions {
  /** DEFAULT_CERTIFICATE_LIMIT: what `tenant.updated` says for a tenant without a limit of its own. */
  defaultCertificateLimit: number;
  /** Told after a commit that recorded an event (the outbox relay's nudge). */
  onEventsRecorded?: () => void;
}

const COLUMNS = 'tenant_id, status, certificate_limit, audit_retention_days, created_at, updated_at';

/**
 * gateway.tenants: a tenant is created on first use (a token of it, or an operator command). Every
 * creation and every change of status or plan limit records `tenant.updated` in the gateway's
 * outbox in the same transaction, so issuance, which enforces both itself, hears of each one.
 */
export class TenantStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: TenantStoreOptions,
  ) {}

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
    await this.recording(async (manager) => {
      const [created]: TenantRow[] = await manager.query(
        `INSERT INTO gateway.tenants (tenant_id, announced) VALUES ($1, true)
         ON CONFLICT (tenant_id) DO NOTHING RETURNING ${COLUMNS}`,
        [tenantId],
      );
      if (created) await this.announce(manager, created);
      return created !== undefined;
    });
    return (await this.find(tenantId))!;
  }

  setStatus(tenantId: string, status: TenantStatus): Promise<TenantRecord> {
    return this.upsert(tenantId, 'status', status, true);
  }

  setCertificateLimit(tenantId: string, limit: number | null): Promise<TenantRecord> {
    return this.upsert(tenantId, 'certificate_limit', limit, true);
  }

  setAuditRetentionDays(tenantId: string, days: number | null): Promise<TenantRecord> {
    return this.upsert(tenantId, 'audit_retention_days', days, false);
  }

  /**
   * Announces every tenant whose state never went out as an event (rows older than the outbox),
   * at most `batch` of them; returns how many. A gateway runs it at start until none are left.
   */
  announcePending(batch = 500): Promise<number> {
    return this.recording(async (manager) => {
      // A SELECT around the UPDATE: TypeORM answers a bare UPDATE with [rows, count].
      const rows: TenantRow[] = await manager.query(
        `WITH announced AS (
           UPDATE gateway.tenants SET announced = true
            WHERE tenant_id IN (SELECT tenant_id FROM gateway.tenants WHERE NOT announced
                                 ORDER BY tenant_id LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING ${COLUMNS})
         SELECT * FROM announced`,
        [batch],
      );
      for (const row of rows) await this.announce(manager, row);
      return rows.length;
    });
  }

  private async upsert(
    tenantId: string,
    column: 'status' | 'certificate_limit' | 'audit_retention_days',
    value: string | number | null,
    announced: boolean,
  ): Promise<TenantRecord> {
    let record: TenantRecord | undefined;
    await this.recording(async (manager) => {
      // clock_timestamp, not now(): the row lock orders concurrent changes, and so must their times.
      const [row]: TenantRow[] = await manager.query(
        `INSERT INTO gateway.tenants AS t (tenant_id, ${column}, announced) VALUES ($1, $2, true)
         ON CONFLICT (tenant_id) DO UPDATE SET ${column} = EXCLUDED.${column}, updated_at = clock_timestamp()
         RETURNING ${COLUMNS}`,
        [tenantId, value],
      );
      record = toRecord(row);
      // A new tenant is always announced; a retention change alone is nothing issuance needs.
      const created = row.created_at.getTime() === row.updated_at.getTime();
      if (announced || created) await this.announce(manager, row);
      return announced || created;
    });
    return record!;
  }

  private async announce(manager: EntityManager, row: TenantRow): Promise<void> {
    await recordEvent<TenantUpdatedPayload>(manager, GATEWAY_SCHEMA, EventType.TenantUpdated, {
      tenantId: row.tenant_id,
      status: row.status,
      certificateLimit:
        row.certificate_limit === null ? this.options.defaultCertificateLimit : Number(row.certificate_limit),
      updatedAt: new Date(row.updated_at).toISOString(),
    });
  }

  /** Runs `work` in a transaction and nudges the relay after a commit whose work says it recorded. */
  private async recording<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const result = await this.dataSource.transaction(work);
    if (result) this.options.onEventsRecorded?.();
    return result;
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
