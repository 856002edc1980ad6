import { EventEnvelope, RevocationReasonCodes } from '@ca/contracts';
import { applyOnce, applyOnceEach, recordApplied } from '@ca/messaging';
import type { DataSource, EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';
import { OCSP_SCHEMA } from '../ocsp.schema';
import { STATUS_CHANGED_CHANNEL } from './status-change-channel.store';

/**
 * When a status change with sequence `incoming` applies to row `s` (docs/architecture.md#certificate-status-sequence):
 * with a sequence, only over a lower one, or over a row stored before sequences whose status
 * the change is about (`legacy`, the rule of old: revoke a good row, release that hold); without
 * one (an event recorded before sequences), only the old rule, and never over a sequenced row.
 */
const STATUS_SEQUENCE_RULE = (incoming: string, legacy: string) =>
  `CASE WHEN ${incoming} IS NULL THEN s.sequence IS NULL AND ${legacy}
        ELSE (s.sequence IS NULL AND ${legacy}) OR s.sequence < ${incoming} END`;

/** A certificate's status as `certificate.issued` states it. */
export interface IssuedStatus {
  tenantId: string;
  serialNumber: string;
  notAfter: string;
  caId: string;
  sequence: number | null;
}

/** An issue of the direct path, with its event's id. */
export interface IssuedStatusEvent extends IssuedStatus {
  eventId: string;
}

/** A revocation as `certificate.revoked` states it. */
export interface RevokedStatus {
  tenantId: string;
  serialNumber: string;
  revokedAt: string;
  reasonCode: number;
  caId: string;
  sequence: number | null;
}

/** A certificate named by its tenant and serial, as the table returns them. */
export interface StatusKey {
  tenant_id: string;
  serial_number: string;
}

export interface StoredStatus {
  serial_number: string;
  ca_id: string;
  not_after: Date;
  revoked_at: Date | null;
  reason_code: number | null;
  status_changed_at: Date | null;
}

export interface StatusChange extends StatusKey {
  status_changed_at: Date;
  revoked_at: Date | null;
  reason_code: number | null;
}

/**
 * ocsp.certificate_status, with the CA tables' ids it checks events against, on one connection (a
 * transaction, or none). Each method is one statement.
 */
export abstract class CertificateStatusStore {
  /** Stores the statuses not stored yet (an issue never changes a row). */
  abstract addIssued(rows: readonly IssuedStatus[]): Promise<void>;
  /**
   * The direct path's issues in one statement: stores those whose CA is the tenant's (held here)
   * and returns the event ids of the others.
   */
  abstract addIssuedOfHeldCas(rows: readonly IssuedStatusEvent[]): Promise<string[]>;
  /** Records events as applied (the inbox), in one statement of their own. */
  abstract recordInInbox(events: readonly EventEnvelope[]): Promise<void>;
  /** Deletes the rows still as issued whose event is not in the inbox; returns those deleted. */
  abstract withdrawIssued(rows: readonly IssuedStatusEvent[]): Promise<StatusKey[]>;
  /** Upserts a revocation if newer than the row's status; returns whether the row changed. */
  abstract revoke(row: RevokedStatus): Promise<boolean>;
  /** revoke() for distinct certificates; returns the rows that changed. */
  abstract revokeMany(rows: readonly RevokedStatus[]): Promise<StatusKey[]>;
  /** Undoes that hold if newer than the row's status; returns whether the row changed. */
  abstract releaseHold(
    tenantId: string,
    serialNumber: string,
    heldSince: string,
    sequence: number | null,
  ): Promise<boolean>;
  abstract find(tenantId: string, serialNumbers: string[]): Promise<StoredStatus[]>;
  /** The database's clock. */
  abstract now(): Promise<Date>;
  /** Rows whose status changed after `since`. */
  abstract changedSince(since: Date): Promise<StatusChange[]>;
  /** The tenants holding this CA id (one at most), among the tenant and added CAs. */
  abstract holdersOf(caId: string): Promise<string[]>;
  /** Every CA of these tenants, among the tenant and added CAs. */
  abstract casOf(tenantIds: string[]): Promise<{ tenant_id: string; ca_id: string }[]>;
  /** Those of these CA ids held by any tenant. */
  abstract heldAmong(caIds: string[]): Promise<string[]>;
  /** Tells every listening replica that a status changed (at commit). */
  abstract notifyChange(): Promise<void>;

  /** Runs `work` for `event` unless it was applied before (then returns false), in one transaction. */
  abstract applyOnce(
    event: EventEnvelope,
    work: (store: CertificateStatusStore) => Promise<void>,
  ): Promise<boolean>;
  /** Runs `work` once for the events not applied before (`fresh`), in one transaction with their inbox rows. */
  abstract applyOnceEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (store: CertificateStatusStore, fresh: T[]) => Promise<void>,
  ): Promise<T[]>;
}

export class SqlCertificateStatusStore extends CertificateStatusStore {
  /** `on`: the transaction's manager, or the data source itself outside one. */
  constructor(
    private readonly dataSource: DataSource,
    private readonly on: DataSource | EntityManager = dataSource,
  ) {
    super();
  }

  applyOnce(event: EventEnvelope, work: (store: CertificateStatusStore) => Promise<void>): Promise<boolean> {
    return applyOnce(this.dataSource, OCSP_SCHEMA, event, (manager) =>
      work(new SqlCertificateStatusStore(this.dataSource, manager)),
    );
  }

  applyOnceEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (store: CertificateStatusStore, fresh: T[]) => Promise<void>,
  ): Promise<T[]> {
    return applyOnceEach(this.dataSource, OCSP_SCHEMA, events, (manager, fresh) =>
      work(new SqlCertificateStatusStore(this.dataSource, manager), fresh),
    );
  }

  recordInInbox(events: readonly EventEnvelope[]): Promise<void> {
    return recordApplied(this.dataSource, OCSP_SCHEMA, events);
  }

  async addIssued(rows: readonly IssuedStatus[]): Promise<void> {
    await this.on.query(
      `INSERT INTO ocsp.certificate_status (tenant_id, serial_number, not_after, ca_id, sequence)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::uuid[], $5::int[])
         ON CONFLICT (tenant_id, serial_number) DO NOTHING`,
      [
        rows.map((row) => row.tenantId),
        rows.map((row) => row.serialNumber),
        rows.map((row) => row.notAfter),
        rows.map((row) => row.caId),
        rows.map((row) => row.sequence),
      ],
    );
  }

  async addIssuedOfHeldCas(rows: readonly IssuedStatusEvent[]): Promise<string[]> {
    const refused: { id: string }[] = await this.on.query(
      // Prepared: every issuance batch runs it (prepared-statements.ts).
      prepared(`WITH given AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::uuid[], $6::int[])
           AS g(event_id, tenant_id, serial_number, not_after, ca_id, sequence)),
       ours AS (
         SELECT g.* FROM given g
          WHERE EXISTS (SELECT 1 FROM ocsp.ca_certificates c WHERE c.tenant_id = g.tenant_id AND c.ca_id = g.ca_id)
             OR EXISTS (SELECT 1 FROM ocsp.added_cas a WHERE a.tenant_id = g.tenant_id AND a.ca_id = g.ca_id)),
       stored AS (
         INSERT INTO ocsp.certificate_status (tenant_id, serial_number, not_after, ca_id, sequence)
         SELECT tenant_id, serial_number, not_after, ca_id, sequence FROM ours
         ON CONFLICT (tenant_id, serial_number) DO NOTHING)
       SELECT event_id::text AS id FROM given WHERE event_id NOT IN (SELECT event_id FROM ours)`),
      [
        rows.map((row) => row.eventId),
        rows.map((row) => row.tenantId),
        rows.map((row) => row.serialNumber),
        rows.map((row) => row.notAfter),
        rows.map((row) => row.caId),
        rows.map((row) => row.sequence),
      ],
    );
    return refused.map((row) => row.id);
  }

  async withdrawIssued(rows: readonly IssuedStatusEvent[]): Promise<StatusKey[]> {
    // The DELETE in a CTE: TypeORM answers a top-level DELETE … RETURNING as [rows, count].
    return this.on.query(
      `WITH given AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[])
           AS g(event_id, tenant_id, serial_number, ca_id, not_after)),
       gone AS (
         DELETE FROM ocsp.certificate_status s USING given g
          WHERE s.tenant_id = g.tenant_id AND s.serial_number = g.serial_number AND s.ca_id = g.ca_id
            AND s.not_after = g.not_after AND s.revoked_at IS NULL AND s.status_changed_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM ocsp.inbox i WHERE i.event_id = g.event_id)
          RETURNING s.tenant_id::text, s.serial_number)
       SELECT * FROM gone`,
      [
        rows.map((row) => row.eventId),
        rows.map((row) => row.tenantId),
        rows.map((row) => row.serialNumber),
        rows.map((row) => row.caId),
        rows.map((row) => row.notAfter),
      ],
    );
  }

  async revoke(row: RevokedStatus): Promise<boolean> {
    // Upsert: a revocation must be answered even if the issue event were ever missing.
    const changed: unknown[] = await this.on.query(
      `INSERT INTO ocsp.certificate_status AS s (tenant_id, serial_number, not_after, revoked_at, reason_code, status_changed_at, ca_id, sequence)
         VALUES ($1, $2, 'infinity', $3, $4, now(), $5, $6)
         ON CONFLICT (tenant_id, serial_number) DO UPDATE SET revoked_at = EXCLUDED.revoked_at,
           reason_code = EXCLUDED.reason_code, status_changed_at = EXCLUDED.status_changed_at,
           sequence = EXCLUDED.sequence
         WHERE ${STATUS_SEQUENCE_RULE('EXCLUDED.sequence', 's.revoked_at IS NULL')}
         RETURNING 1`,
      [row.tenantId, row.serialNumber, row.revokedAt, row.reasonCode, row.caId, row.sequence],
    );
    return changed.length > 0;
  }

  async revokeMany(rows: readonly RevokedStatus[]): Promise<StatusKey[]> {
    return this.on.query(
      `INSERT INTO ocsp.certificate_status AS s (tenant_id, serial_number, not_after, revoked_at, reason_code, status_changed_at, ca_id, sequence)
         SELECT tenant_id, serial_number, 'infinity', revoked_at, reason_code, now(), ca_id, sequence
           FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::int[], $5::uuid[], $6::int[])
             AS g(tenant_id, serial_number, revoked_at, reason_code, ca_id, sequence)
         ON CONFLICT (tenant_id, serial_number) DO UPDATE SET revoked_at = EXCLUDED.revoked_at,
           reason_code = EXCLUDED.reason_code, status_changed_at = EXCLUDED.status_changed_at,
           sequence = EXCLUDED.sequence
         WHERE ${STATUS_SEQUENCE_RULE('EXCLUDED.sequence', 's.revoked_at IS NULL')}
         RETURNING s.tenant_id::text, s.serial_number`,
      [
        rows.map((row) => row.tenantId),
        rows.map((row) => row.serialNumber),
        rows.map((row) => row.revokedAt),
        rows.map((row) => row.reasonCode),
        rows.map((row) => row.caId),
        rows.map((row) => row.sequence),
      ],
    );
  }

  async releaseHold(
    tenantId: string,
    serialNumber: string,
    heldSince: string,
    sequence: number | null,
  ): Promise<boolean> {
    const changed: unknown[] = await this.on.query(
      `UPDATE ocsp.certificate_status AS s SET revoked_at = NULL, reason_code = NULL, status_changed_at = now(),
                sequence = $5
          WHERE tenant_id = $1 AND serial_number = $2
            AND ${STATUS_SEQUENCE_RULE('$5::int', 's.reason_code = $3 AND s.revoked_at = $4')}
          RETURNING 1`,
      [tenantId, serialNumber, RevocationReasonCodes.CertificateHold, heldSince, sequence],
    );
    return changed.length > 0;
  }

  find(tenantId: string, serialNumbers: string[]): Promise<StoredStatus[]> {
    return this.on.query(
      `SELECT serial_number, ca_id, not_after, revoked_at, reason_code, status_changed_at FROM ocsp.certificate_status
          WHERE tenant_id = $1 AND serial_number = ANY($2)`,
      [tenantId, serialNumbers],
    );
  }

  async now(): Promise<Date> {
    const [{ now }]: { now: Date }[] = await this.on.query('SELECT now() AS now');
    return now;
  }

  changedSince(since: Date): Promise<StatusChange[]> {
    return this.on.query(
      `SELECT tenant_id, serial_number, status_changed_at, revoked_at, reason_code FROM ocsp.certificate_status
         WHERE status_changed_at > $1`,
      [since],
    );
  }

  async holdersOf(caId: string): Promise<string[]> {
    const rows: { tenant_id: string }[] = await this.on.query(
      `SELECT tenant_id::text FROM ocsp.ca_certificates WHERE ca_id = $1
             UNION ALL SELECT tenant_id::text FROM ocsp.added_cas WHERE ca_id = $1`,
      [caId],
    );
    return rows.map((row) => row.tenant_id);
  }

  casOf(tenantIds: string[]): Promise<{ tenant_id: string; ca_id: string }[]> {
    return this.on.query(
      `SELECT tenant_id, ca_id FROM ocsp.ca_certificates WHERE tenant_id = ANY($1::uuid[])
             UNION ALL SELECT tenant_id, ca_id FROM ocsp.added_cas WHERE tenant_id = ANY($1::uuid[])`,
      [tenantIds],
    );
  }

  async heldAmong(caIds: string[]): Promise<string[]> {
    const rows: { ca_id: string }[] = await this.on.query(
      `SELECT ca_id::text FROM ocsp.ca_certificates WHERE ca_id = ANY($1::uuid[])
         UNION ALL SELECT ca_id::text FROM ocsp.added_cas WHERE ca_id = ANY($1::uuid[])`,
      [caIds],
    );
    return rows.map((row) => row.ca_id);
  }

  async notifyChange(): Promise<void> {
    await this.on.query(`SELECT pg_notify($1, '')`, [STATUS_CHANGED_CHANNEL]);
  }
}
