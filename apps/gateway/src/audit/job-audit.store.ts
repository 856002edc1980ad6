import { DataSource } from 'typeorm';
import { AuditEntryInput } from './audit-chain';
import { AuditStore } from './audit.store';

/** A bulk revocation job being audited (a row of gateway.job_audits). */
export interface FollowedJob {
  jobId: string;
  tenantId: string;
  principal: string;
  requestId: string;
  /** Where the audit has read the job's revocations up to; null before the first batch. */
  position: string | null;
}

interface FollowedRow {
  job_id: string;
  tenant_id: string;
  principal: string;
  request_id: string;
  position: string | null;
}

/**
 * What became of a batch offered to `advance`: appended (`written`), not ours because another
 * replica moved the position meanwhile (`moved`), or the job was finished already (`finished`).
 */
export type JobAuditAdvance = 'written' | 'moved' | 'finished';

/** Per bulk revocation job, who started it and how far its revocations have been audited. */
export abstract class JobAuditStore {
  /** Records a job to audit; a job recorded before stays as it is. */
  abstract add(job: Omit<FollowedJob, 'position'>): Promise<void>;
  /** The ids of the jobs not finished yet, oldest first. */
  abstract unfinished(): Promise<string[]>;
  /** The job if it is not finished. */
  abstract findUnfinished(jobId: string): Promise<FollowedJob | undefined>;
  /** Marks the job finished without auditing more of it. */
  abstract finish(jobId: string): Promise<void>;
  /**
   * Appends `entries` to the audit log and moves the job's position from `from` to `next`
   * (finishing it when `finished`), all at once, only if the position is still `from`.
   */
  abstract advance(
    jobId: string,
    from: string | null,
    entries: AuditEntryInput[],
    next: string | null,
    finished: boolean,
  ): Promise<JobAuditAdvance>;
}

/**
 * gateway.job_audits. A batch's audit entries are appended (through the audit store) in the same
 * transaction that moves the position, under the job row's lock: exactly once each, across
 * restarts and gateway replicas.
 */
export class SqlJobAuditStore extends JobAuditStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditStore,
  ) {
    super();
  }

  async add(job: Omit<FollowedJob, 'position'>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO gateway.job_audits (job_id, tenant_id, principal, request_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (job_id) DO NOTHING`,
      [job.jobId, job.tenantId, job.principal, job.requestId],
    );
  }

  async unfinished(): Promise<string[]> {
    const jobs: { job_id: string }[] = await this.dataSource.query(
      'SELECT job_id FROM gateway.job_audits WHERE finished_at IS NULL ORDER BY created_at',
    );
    return jobs.map((job) => job.job_id);
  }

  async findUnfinished(jobId: string): Promise<FollowedJob | undefined> {
    const rows: FollowedRow[] = await this.dataSource.query(
      `SELECT job_id, tenant_id, principal, request_id, position FROM gateway.job_audits
        WHERE job_id = $1 AND finished_at IS NULL`,
      [jobId],
    );
    const [row] = rows;
    return row
      ? {
          jobId: row.job_id,
          tenantId: row.tenant_id,
          principal: row.principal,
          requestId: row.request_id,
          position: row.position,
        }
      : undefined;
  }

  async finish(jobId: string): Promise<void> {
    await this.dataSource.query('UPDATE gateway.job_audits SET finished_at = now() WHERE job_id = $1', [
      jobId,
    ]);
  }

  advance(
    jobId: string,
    from: string | null,
    entries: AuditEntryInput[],
    next: string | null,
    finished: boolean,
  ): Promise<JobAuditAdvance> {
    return this.dataSource.transaction(async (manager): Promise<JobAuditAdvance> => {
      const locked: { position: string | null }[] = await manager.query(
        `SELECT position FROM gateway.job_audits WHERE job_id = $1 AND finished_at IS NULL FOR UPDATE`,
        [jobId],
      );
      if (locked.length === 0) return 'finished';
      if (locked[0].position !== from) return 'moved';
      await this.audit.appendIn(manager, entries);
      await manager.query(
        `UPDATE gateway.job_audits SET position = $2, finished_at = CASE WHEN $3 THEN now() END WHERE job_id = $1`,
        [jobId, next, finished],
      );
      return 'written';
    });
  }
}
