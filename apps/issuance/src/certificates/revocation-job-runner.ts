import { randomUUID } from 'node:crypto';
import { CaError, MAX_PUBLISHED_EVENTS, RevocationReasonCode, RevocationReasonCodes } from '@ca/contracts';
import { isDatabaseUnavailable } from '@ca/persistence';
import { IssuanceDatabase } from '../issuance-database.store';
import { ClaimedRevocationJob, RevocationJobStore } from './revocation-job.store';
import { RevokeCertificateHandler } from './revoke-certificate.handler';

/**
 * Certificates revoked per transaction: as many as the responder takes in one publication, so
 * each batch is a few statements and one publication (its events well under the bus's message size).
 */
export const REVOCATION_BATCH = MAX_PUBLISHED_EVENTS;
/** A replica that stops renewing its lease (a crash) leaves the job to another after this. */
const LEASE_MS = 30_000;
/** After a failed round: wait, then carry on where the job stands. */
const RETRY_MS = 2_000;
/**
 * Rounds in a row that fail (no certificate revoked between them) before the job is `failed`.
 * The database being away does not count: nothing can be recorded then, and it comes back.
 */
export const MAX_FAILED_ROUNDS = 5;

/** A round's failure, with the certificate it was revoking. */
class RoundFailure extends Error {
  constructor(
    readonly certificateId: string,
    readonly error: unknown,
  ) {
    super(
      `revoking certificate ${certificateId} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Works through revoke-matching jobs (docs/api.md#revoke-matching) in batches of pending
 * certificates: each batch is revoked in one transaction by the single revocation's own handler
 * (RevokeCertificateHandler.executeBatch), so every certificate gets its own `certificate.revoked`
 * event (audited, published to the CRL and OCSP as `POST /v1/certificates/{id}/revoke` would),
 * and the items' states and the job's counters change in that same transaction. A job still
 * `running` at start (the process stopped mid-way) is resumed: a batch commits whole or not at
 * all, so revoked items are never taken again and pending ones always are.
 */
export class RevocationJobRunner {
  private readonly owner = randomUUID();
  private readonly active = new Map<string, Promise<void>>();
  private stopping = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  private onError: (error: unknown, jobId: string) => void = () => undefined;

  private readonly jobs: RevocationJobStore;

  constructor(
    database: IssuanceDatabase,
    private readonly revoke: RevokeCertificateHandler,
    private readonly batchSize = REVOCATION_BATCH,
  ) {
    this.jobs = database.tables.revocationJobs;
  }

  /** Resumes every unfinished job (those a live replica holds are left to it until its lease ends). */
  async start(onError?: (error: unknown, jobId: string) => void): Promise<void> {
    if (onError) this.onError = onError;
    for (const id of await this.jobs.running()) this.kick(id);
  }

  kick(jobId: string): void {
    if (this.stopping || this.active.has(jobId)) return;
    const run = this.run(jobId)
      .catch(async (error: unknown) => {
        this.onError(error instanceof RoundFailure ? error.error : error, jobId);
        if (!(await this.failedRound(jobId, error).catch(() => false))) this.later(jobId, RETRY_MS);
      })
      .finally(() => this.active.delete(jobId));
    this.active.set(jobId, run);
  }

  /** Waits for the batches under way to end; the jobs stay `running` for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all(this.active.values());
    // Handed back at once, so a restart goes on without waiting for the lease to run out.
    await this.jobs.releaseLeases(this.owner).catch(() => undefined);
  }

  /**
   * Runs a job to its end (or until stopped); exposed for the runner's own tests. A batch's
   * delivery to the responder and the CRL's ledger runs while the next batch's transaction does,
   * and no further ahead: a batch starts only once the delivery two before it has settled, and the
   * job is `done` only once the last one has.
   */
  async run(jobId: string): Promise<void> {
    let delivering: Promise<unknown> = Promise.resolve();
    try {
      for (;;) {
        if (this.stopping) return;
        const job = await this.claim(jobId);
        if (!job) return;
        const ids = await this.jobs.pending(jobId, this.batchSize);
        if (ids.length === 0) {
          await delivering;
          await this.jobs.finish(jobId);
          return;
        }
        let failure: RoundFailure | undefined;
        let settled = 0;
        try {
          const batch = await this.revokeBatch(job, ids, delivering);
          settled = batch.settled;
          // The previous batch's delivery is waited for here, while this one's starts after it.
          await delivering;
          delivering = batch.delivered;
        } catch (error) {
          if (ids.length === 1) failure = new RoundFailure(ids[0], error);
          // Some certificate of the batch, or the service, fails: one at a time, so that the others
          // are revoked and the failure names a certificate that fails alone.
          for (const certificateId of ids.length === 1 ? [] : ids) {
            if (this.stopping) break;
            try {
              const single = await this.revokeBatch(job, [certificateId], delivering);
              settled += single.settled;
              await delivering;
              delivering = single.delivered;
            } catch (one) {
              failure ??= new RoundFailure(certificateId, one);
              // The database away fails every one of them alike: the round ends here.
              if (isDatabaseUnavailable(one)) break;
            }
          }
        }
        // Progress: the failures counted so far were not in a row.
        if (settled > 0 && job.failed_rounds > 0) {
          await this.jobs.resetFailedRounds(jobId);
          job.failed_rounds = 0;
        }
        if (failure) throw failure;
        if (this.stopping) return;
      }
    } finally {
      // Stopped or failed: what was committed is still delivered before the runner lets go.
      await delivering;
    }
  }

  /**
   * Revokes a batch of the job's pending certificates in one transaction (one publication to the
   * responder for all of them, once `after` has settled); each item leaves `pending` in it,
   * `revoked`, or `skipped` when its certificate was revoked meanwhile by another call (an answer
   * about that certificate, never retried). Returns how many items it settled and their delivery.
   */
  private async revokeBatch(
    job: ClaimedRevocationJob,
    certificateIds: string[],
    after: Promise<unknown>,
  ): Promise<{ settled: number; delivered: Promise<unknown> }> {
    const batch = await this.revoke.executeBatch(
      {
        tenantId: job.tenant_id,
        principal: job.principal,
        certificateIds,
        reason: job.reason,
        reasonCodeNumber: RevocationReasonCodes[job.reason_code as RevocationReasonCode],
      },
      (tables, outcome) => this.settle(tables.revocationJobs, job.id, outcome.revoked, outcome.skipped),
      after,
    );
    return { settled: certificateIds.length, delivered: batch.delivered };
  }

  /** Each item leaves `pending` once, in the batch's transaction, and the job's counters move with them. */
  private async settle(
    jobs: RevocationJobStore,
    jobId: string,
    revoked: string[],
    skipped: string[],
  ): Promise<void> {
    const changed = await jobs.settleItems(jobId, revoked, skipped);
    // Settled already (by a replica whose lease this one outlived): this batch must not count twice.
    if (changed !== revoked.length + skipped.length) {
      throw new Error(`items of job ${jobId} were settled already`);
    }
    await jobs.addCounts(jobId, revoked.length, skipped.length);
  }

  /**
   * Counts a failed round; at MAX_FAILED_ROUNDS in a row the job is `failed`, with the reason
   * (docs/api.md#jobs), and true is returned: no retry. The database being away is not counted.
   */
  private async failedRound(jobId: string, error: unknown): Promise<boolean> {
    const cause = error instanceof RoundFailure ? error.error : error;
    if (isDatabaseUnavailable(cause)) return false;
    const what =
      cause instanceof CaError
        ? `${cause.code}: ${cause.message}`
        : 'an internal error (see the issuance log)';
    const reason =
      error instanceof RoundFailure
        ? `revoking certificate ${error.certificateId} failed ${MAX_FAILED_ROUNDS} times in a row with ${what}; the certificates still pending were not revoked`
        : `the job failed ${MAX_FAILED_ROUNDS} times in a row with ${what}`;
    const status = await this.jobs.failedRound(jobId, MAX_FAILED_ROUNDS, reason);
    return status === undefined || status === 'failed';
  }

  /** Takes (or renews) the job's lease; undefined when done or held by a live replica. */
  private async claim(jobId: string): Promise<ClaimedRevocationJob | undefined> {
    const claimed = await this.jobs.claim(jobId, this.owner, LEASE_MS / 1000);
    if (claimed) return claimed;
    const leaseUntil = await this.jobs.leaseUntil(jobId);
    // Another replica holds it: look again once its lease would have run out.
    if (leaseUntil) this.later(jobId, Math.max(leaseUntil.getTime() - Date.now(), 0) + 100);
    return undefined;
  }

  private later(jobId: string, ms: number): void {
    if (this.stopping) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.kick(jobId);
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
