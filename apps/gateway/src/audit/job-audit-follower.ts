import { CaError, ErrorCode, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { AuditRepository } from './audit.repository';

/** Revocations audited per transaction. */
const BATCH = 500;
/** How often unfinished jobs are looked at, besides the nudge of a job started here. */
const POLL_MS = 1_000;

interface Followed {
  job_id: string;
  tenant_id: string;
  principal: string;
  request_id: string;
  position: string | null;
}

/**
 * docs/api.md#revoke-matching: every certificate a bulk revocation job revokes gets the audit
 * entry a single revocation gets (`certificate.revoke` on its `/v1/certificates/{id}/revoke`,
 * 200, the principal and request id of the call that started the job, at the time it was
 * revoked). The job runs in issuance; this reads its revocations there (in the order they became
 * visible) and appends their entries in the transaction that moves the job's position, under the
 * job's row lock and only from the position it read: exactly once each, across restarts and
 * gateway replicas.
 */
export class JobAuditFollower {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditRepository,
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly pollMs = POLL_MS,
  ) {}

  /** Records a job to audit (its call answered 202), then starts on it. */
  async follow(job: {
    jobId: string;
    tenantId: string;
    principal: string;
    requestId: string;
  }): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO gateway.job_audits (job_id, tenant_id, principal, request_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (job_id) DO NOTHING`,
      [job.jobId, job.tenantId, job.principal, job.requestId],
    );
    this.nudge();
  }

  start(): void {
    const tick = () => {
      this.nudge();
      if (!this.stopped) this.timer = setTimeout(tick, this.pollMs).unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** Every unfinished job, each read to where issuance has got. */
  private async round(): Promise<void> {
    const jobs: { job_id: string }[] = await this.dataSource.query(
      'SELECT job_id FROM gateway.job_audits WHERE finished_at IS NULL ORDER BY created_at',
    );
    for (const { job_id: jobId } of jobs) {
      while (!this.stopped && (await this.step(jobId)));
    }
  }

  /**
   * One batch of a job's revocations audited; true while there may be more to read at once. The
   * batch is read from issuance outside any transaction (embedded mode shares one database
   * connection: a transaction held across the request would wait for itself); the entries are
   * appended only if the position is still the one read from, under the job row's lock.
   */
  async step(jobId: string): Promise<boolean> {
    const rows: Followed[] = await this.dataSource.query(
      `SELECT job_id, tenant_id, principal, request_id, position FROM gateway.job_audits
        WHERE job_id = $1 AND finished_at IS NULL`,
      [jobId],
    );
    if (rows.length === 0) return false;
    const [job] = rows;
    let answer;
    try {
      answer = await this.issuance.send(IssuancePattern.GetJobRevocations, {
        tenantId: job.tenant_id,
        jobId,
        limit: BATCH,
        ...(job.position ? { after: job.position } : {}),
      });
    } catch (error) {
      // A job issuance does not know (its database restored from before it): nothing to audit.
      if (error instanceof CaError && error.code === ErrorCode.NotFound) {
        await this.dataSource.query('UPDATE gateway.job_audits SET finished_at = now() WHERE job_id = $1', [
          jobId,
        ]);
        return false;
      }
      throw error;
    }
    const read = answer;
    return this.dataSource.transaction(async (manager) => {
      const locked: { position: string | null }[] = await manager.query(
        `SELECT position FROM gateway.job_audits WHERE job_id = $1 AND finished_at IS NULL FOR UPDATE`,
        [jobId],
      );
      // Finished, or moved on by another replica meanwhile: this batch is not ours to write.
      if (locked.length === 0 || locked[0].position !== job.position) return locked.length > 0;
      await this.audit.appendIn(
        manager,
        read.revocations.map((r) => ({
          occurredAt: new Date(r.revokedAt),
          tenantId: job.tenant_id,
          principal: job.principal,
          action: 'certificate.revoke',
          resource: `/v1/certificates/${r.certificateId}/revoke`,
          result: 200,
          code: null,
          requestId: job.request_id,
        })),
      );
      await manager.query(
        `UPDATE gateway.job_audits SET position = $2, finished_at = CASE WHEN $3 THEN now() END WHERE job_id = $1`,
        [jobId, read.next, read.finished],
      );
      return read.revocations.length > 0;
    });
  }
}
