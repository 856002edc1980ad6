import { InventoryFilter, RevocationJobView } from '@ca/contracts';
import { EntityManager } from 'typeorm';
import { filterConditions } from './certificate-inventory.store';

/** A new revoke-matching job (docs/api.md#revoke-matching). */
export interface NewRevocationJob {
  id: string;
  tenantId: string;
  principal: string;
  requestId: string | null;
  reason: string;
  reasonCode: string;
}

/** A job as `GET /v1/jobs/{id}` shows it. */
export interface RevocationJobRow {
  id: string;
  status: RevocationJobView['status'];
  total: number;
  done: number;
  failed: number;
  failure: string | null;
}

/** A job as the runner revokes its items. */
export interface ClaimedRevocationJob {
  id: string;
  tenant_id: string;
  principal: string;
  request_id: string | null;
  reason: string;
  reason_code: string;
  failed_rounds: number;
}

/** Where a reading of a job's revocations stopped: the revoking transaction and the certificate. */
export interface JobRevocationPosition {
  revokedIn: string;
  certificateId: string;
}

export interface JobRevocationRow {
  certificate_id: string;
  revoked_at: Date;
  revoked_in: string;
}

/**
 * `issuance.revocation_jobs` and their `revocation_job_items`: the certificates a filter matched
 * when the job was confirmed, each item settled once (in the transaction that revokes it), the
 * lease a replica holds on a running job, and the revocations read back in commit order.
 */
export abstract class RevocationJobStore {
  /** The tenant's unrevoked certificates the filter matches now. */
  abstract countUnrevoked(tenantId: string, filter: InventoryFilter, now: Date): Promise<number>;
  /** Inserts the job, `running`, with no items yet. */
  abstract insert(job: NewRevocationJob): Promise<void>;
  /** Copies the unrevoked matches into the job's items; how many. */
  abstract chooseItems(jobId: string, tenantId: string, filter: InventoryFilter, now: Date): Promise<number>;
  abstract setTotal(jobId: string, total: number): Promise<void>;
  abstract ofTenant(jobId: string, tenantId: string): Promise<RevocationJobRow | undefined>;
  abstract statusOf(jobId: string, tenantId: string): Promise<string | undefined>;
  /**
   * The job's revocations after `after`, in the order of the transactions that revoked them, only
   * those older than every transaction still running.
   */
  abstract revocations(
    jobId: string,
    tenantId: string,
    limit: number,
    after: JobRevocationPosition | undefined,
  ): Promise<JobRevocationRow[]>;
  /** Whether a revocation after `after` exists, readable yet or not. */
  abstract anyRevocationAfter(jobId: string, after: JobRevocationPosition | undefined): Promise<boolean>;
  /** The ids of the jobs still `running`, oldest first. */
  abstract running(): Promise<string[]>;
  /** Takes (or renews) the lease of a running job held by none, by `owner`, or whose lease ran out. */
  abstract claim(
    jobId: string,
    owner: string,
    leaseSeconds: number,
  ): Promise<ClaimedRevocationJob | undefined>;
  /** When the lease of a running job ends. */
  abstract leaseUntil(jobId: string): Promise<Date | undefined>;
  abstract releaseLeases(owner: string): Promise<void>;
  /** Up to `limit` pending items, by certificate id. */
  abstract pending(jobId: string, limit: number): Promise<string[]>;
  /** A running job with nothing pending: `done`. */
  abstract finish(jobId: string): Promise<void>;
  /** Each pending item among `revoked` and `skipped` settled so; how many were pending. */
  abstract settleItems(
    jobId: string,
    revoked: readonly string[],
    skipped: readonly string[],
  ): Promise<number>;
  abstract addCounts(jobId: string, done: number, failed: number): Promise<void>;
  abstract resetFailedRounds(jobId: string): Promise<void>;
  /**
   * Counts a failed round; at `max` in a row the job is `failed` with `failure`. The job's status
   * after it, undefined when it was not running.
   */
  abstract failedRound(jobId: string, max: number, failure: string): Promise<string | undefined>;
}

export class SqlRevocationJobStore extends RevocationJobStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async countUnrevoked(tenantId: string, filter: InventoryFilter, now: Date): Promise<number> {
    const { where, params } = filterConditions(tenantId, filter, now);
    const unrevoked = `FROM issuance.certificates WHERE ${where} AND revoked_at IS NULL`;
    const [row]: { count: string }[] = await this.db.query(`SELECT count(*) AS count ${unrevoked}`, params);
    return Number(row.count);
  }

  async insert(job: NewRevocationJob): Promise<void> {
    await this.db.query(
      `INSERT INTO issuance.revocation_jobs (id, tenant_id, principal, request_id, reason, reason_code, status, total)
         VALUES ($1, $2, $3, $4, $5, $6, 'running', 0)`,
      [job.id, job.tenantId, job.principal, job.requestId, job.reason, job.reasonCode],
    );
  }

  async chooseItems(jobId: string, tenantId: string, filter: InventoryFilter, now: Date): Promise<number> {
    const { where, params } = filterConditions(tenantId, filter, now);
    const unrevoked = `FROM issuance.certificates WHERE ${where} AND revoked_at IS NULL`;
    const next = params.length + 1;
    const [{ count }]: { count: string }[] = await this.db.query(
      `WITH chosen AS (
           INSERT INTO issuance.revocation_job_items (job_id, certificate_id)
           SELECT $${next}::uuid, id ${unrevoked} RETURNING 1)
         SELECT count(*) AS count FROM chosen`,
      [...params, jobId],
    );
    return Number(count);
  }

  async setTotal(jobId: string, total: number): Promise<void> {
    await this.db.query('UPDATE issuance.revocation_jobs SET total = $2 WHERE id = $1', [jobId, total]);
  }

  async ofTenant(jobId: string, tenantId: string): Promise<RevocationJobRow | undefined> {
    const rows: RevocationJobRow[] = await this.db.query(
      'SELECT id, status, total, done, failed, failure FROM issuance.revocation_jobs WHERE id = $1 AND tenant_id = $2',
      [jobId, tenantId],
    );
    return rows[0];
  }

  async statusOf(jobId: string, tenantId: string): Promise<string | undefined> {
    const jobs: { status: string }[] = await this.db.query(
      'SELECT status FROM issuance.revocation_jobs WHERE id = $1 AND tenant_id = $2',
      [jobId, tenantId],
    );
    return jobs[0]?.status;
  }

  revocations(
    jobId: string,
    tenantId: string,
    limit: number,
    after: JobRevocationPosition | undefined,
  ): Promise<JobRevocationRow[]> {
    return this.db.query(
      `SELECT i.certificate_id, c.revoked_at, i.revoked_in::text AS revoked_in
       FROM issuance.revocation_job_items i
       JOIN issuance.certificates c ON c.id = i.certificate_id AND c.tenant_id = $2
      WHERE i.job_id = $1 AND i.revoked_in IS NOT NULL
        AND i.revoked_in < pg_snapshot_xmin(pg_current_snapshot())
        ${after ? 'AND (i.revoked_in, i.certificate_id) > ($4::xid8, $5::uuid)' : ''}
      ORDER BY i.revoked_in, i.certificate_id
      LIMIT $3`,
      [jobId, tenantId, limit, ...(after ? [after.revokedIn, after.certificateId] : [])],
    );
  }

  async anyRevocationAfter(jobId: string, after: JobRevocationPosition | undefined): Promise<boolean> {
    const hidden: unknown[] = await this.db.query(
      `SELECT 1 FROM issuance.revocation_job_items i
        WHERE i.job_id = $1 AND i.revoked_in IS NOT NULL
          ${after ? 'AND (i.revoked_in, i.certificate_id) > ($2::xid8, $3::uuid)' : ''}
        LIMIT 1`,
      [jobId, ...(after ? [after.revokedIn, after.certificateId] : [])],
    );
    return hidden.length > 0;
  }

  async running(): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM issuance.revocation_jobs WHERE status = 'running' ORDER BY created_at`,
    );
    return rows.map((row) => row.id);
  }

  async claim(jobId: string, owner: string, leaseSeconds: number): Promise<ClaimedRevocationJob | undefined> {
    const [rows]: [ClaimedRevocationJob[], number] = await this.db.query(
      `UPDATE issuance.revocation_jobs
          SET lease_owner = $2, lease_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND status = 'running'
          AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
        RETURNING id, tenant_id, principal, request_id, reason, reason_code, failed_rounds`,
      [jobId, owner, leaseSeconds],
    );
    return rows[0];
  }

  async leaseUntil(jobId: string): Promise<Date | undefined> {
    const held: { lease_until: Date }[] = await this.db.query(
      `SELECT lease_until FROM issuance.revocation_jobs WHERE id = $1 AND status = 'running'`,
      [jobId],
    );
    return held[0]?.lease_until;
  }

  async releaseLeases(owner: string): Promise<void> {
    await this.db.query(
      'UPDATE issuance.revocation_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1',
      [owner],
    );
  }

  async pending(jobId: string, limit: number): Promise<string[]> {
    const pending: { certificate_id: string }[] = await this.db.query(
      `SELECT certificate_id FROM issuance.revocation_job_items
          WHERE job_id = $1 AND state = 'pending' ORDER BY certificate_id LIMIT $2`,
      [jobId, limit],
    );
    return pending.map((p) => p.certificate_id);
  }

  async finish(jobId: string): Promise<void> {
    await this.db.query(
      `UPDATE issuance.revocation_jobs SET status = 'done', finished_at = now(), lease_owner = NULL, lease_until = NULL
            WHERE id = $1 AND status = 'running'`,
      [jobId],
    );
  }

  async settleItems(jobId: string, revoked: readonly string[], skipped: readonly string[]): Promise<number> {
    const [, changed]: [unknown, number] = await this.db.query(
      `UPDATE issuance.revocation_job_items
          SET state = CASE WHEN certificate_id = ANY($2::uuid[]) THEN 'revoked' ELSE 'skipped' END,
              revoked_in = CASE WHEN certificate_id = ANY($2::uuid[]) THEN pg_current_xact_id() END
        WHERE job_id = $1 AND certificate_id = ANY($3::uuid[]) AND state = 'pending'`,
      [jobId, revoked, [...revoked, ...skipped]],
    );
    return changed;
  }

  async addCounts(jobId: string, done: number, failed: number): Promise<void> {
    await this.db.query(
      'UPDATE issuance.revocation_jobs SET done = done + $2, failed = failed + $3 WHERE id = $1',
      [jobId, done, failed],
    );
  }

  async resetFailedRounds(jobId: string): Promise<void> {
    await this.db.query('UPDATE issuance.revocation_jobs SET failed_rounds = 0 WHERE id = $1', [jobId]);
  }

  async failedRound(jobId: string, max: number, failure: string): Promise<string | undefined> {
    const [rows]: [{ status: string }[], number] = await this.db.query(
      `UPDATE issuance.revocation_jobs
          SET failed_rounds = failed_rounds + 1,
              status = CASE WHEN failed_rounds + 1 >= $2 THEN 'failed' ELSE status END,
              failure = CASE WHEN failed_rounds + 1 >= $2 THEN $3 ELSE failure END,
              finished_at = CASE WHEN failed_rounds + 1 >= $2 THEN now() ELSE finished_at END,
              lease_owner = CASE WHEN failed_rounds + 1 >= $2 THEN NULL ELSE lease_owner END,
              lease_until = CASE WHEN failed_rounds + 1 >= $2 THEN NULL ELSE lease_until END
        WHERE id = $1 AND status = 'running'
        RETURNING status`,
      [jobId, max, failure],
    );
    return rows[0]?.status;
  }
}
