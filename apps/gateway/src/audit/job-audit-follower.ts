import { CaError, ErrorCode, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { JobAuditStore } from './job-audit.store';

/** Revocations audited per transaction. */
const BATCH = 500;
/** How often unfinished jobs are looked at, besides the nudge of a job started here. */
const POLL_MS = 1_000;

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
    private readonly jobs: JobAuditStore,
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
    await this.jobs.add(job);
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
    for (const jobId of await this.jobs.unfinished()) {
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
    const job = await this.jobs.findUnfinished(jobId);
    if (!job) return false;
    let answer;
    try {
      answer = await this.issuance.send(IssuancePattern.GetJobRevocations, {
        tenantId: job.tenantId,
        jobId,
        limit: BATCH,
        ...(job.position ? { after: job.position } : {}),
      });
    } catch (error) {
      // A job issuance does not know (its database restored from before it): nothing to audit.
      if (error instanceof CaError && error.code === ErrorCode.NotFound) {
        await this.jobs.finish(jobId);
        return false;
      }
      throw error;
    }
    const read = answer;
    const outcome = await this.jobs.advance(
      jobId,
      job.position,
      read.revocations.map((r) => ({
        occurredAt: new Date(r.revokedAt),
        tenantId: job.tenantId,
        principal: job.principal,
        action: 'certificate.revoke',
        resource: `/v1/certificates/${r.certificateId}/revoke`,
        result: 200,
        code: null,
        requestId: job.requestId,
      })),
      read.next,
      read.finished,
    );
    // Moved on by another replica meanwhile: that batch was not ours to write; read on from there.
    if (outcome !== 'written') return outcome === 'moved';
    return read.revocations.length > 0;
  }
}
