import { Logger } from '@ca/observability';
import { AcmeProblem } from '../protocol/acme-problem';
import { AcmeStore } from '../protocol/acme-store';
import { ChallengeValidators } from './challenge-validators';

/** Validations under way at once per replica: each holds a socket for at most its deadline. */
export const MAX_VALIDATIONS_IN_FLIGHT = 32;
/** Validations waiting for a slot per replica; past that, a challenge POST is answered 503. */
export const MAX_VALIDATIONS_QUEUED = 1024;

export interface ValidationJob {
  tenantId: string;
  challengeId: string;
  keyAuthorization: string;
  /** The tenant's allowed DNS suffixes when the validation was asked for (null: any name). */
  allowedDnsSuffixes: readonly string[] | null;
}

/**
 * Runs challenge validations in the background (RFC 8555 7.5.1: the client polls), at most
 * `maxInFlight` at once and `maxQueued` waiting, records each outcome, and lets the service wait
 * for the ones under way when it stops (those still waiting are put back to pending, to be asked
 * again).
 */
export class ValidationRunner {
  private readonly running = new Set<Promise<void>>();
  private readonly queue: ValidationJob[] = [];
  private stopped = false;

  constructor(
    private readonly store: AcmeStore,
    private readonly validators: ChallengeValidators,
    private readonly logger: Logger,
    private readonly maxInFlight = MAX_VALIDATIONS_IN_FLIGHT,
    private readonly maxQueued = MAX_VALIDATIONS_QUEUED,
  ) {}

  /** Whether one more validation can be taken now (run or queued). */
  hasRoom(): boolean {
    return !this.stopped && this.queue.length < this.maxQueued;
  }

  start(job: ValidationJob): void {
    this.queue.push(job);
    this.next();
  }

  /** Waits for the validations under way; the queued ones are given back as pending. */
  async idle(): Promise<void> {
    this.stopped = true;
    const waiting = this.queue.splice(0);
    await Promise.all(
      waiting.map((job) =>
        this.store
          .abandonValidation(job.challengeId)
          .catch((err: unknown) =>
            this.logger.warn({ err, challengeId: job.challengeId }, 'ACME validation left processing'),
          ),
      ),
    );
    await Promise.all([...this.running]);
  }

  private next(): void {
    while (!this.stopped && this.running.size < this.maxInFlight && this.queue.length > 0) {
      const job = this.queue.shift()!;
      const run = this.run(job).catch((err: unknown) =>
        this.logger.error({ err, challengeId: job.challengeId }, 'recording an ACME validation failed'),
      );
      this.running.add(run);
      void run.finally(() => {
        this.running.delete(run);
        this.next();
      });
    }
  }

  private async run({
    tenantId,
    challengeId,
    keyAuthorization,
    allowedDnsSuffixes,
  }: ValidationJob): Promise<void> {
    const found = await this.store.findChallenge(tenantId, challengeId);
    if (!found) return;
    const { challenge, authorization } = found;
    try {
      await this.validators.validate(challenge.type, {
        // RFC 8555 7.1.3: a wildcard's authorization proves control of the name below `*.`.
        name: authorization.identifier.replace(/^\*\./, ''),
        token: challenge.token,
        keyAuthorization,
        allowedDnsSuffixes,
      });
    } catch (error) {
      const problem =
        error instanceof AcmeProblem
          ? error
          : new AcmeProblem('serverInternal', 'the validation failed', 500);
      if (!(error instanceof AcmeProblem))
        this.logger.warn({ err: error, challengeId }, 'ACME validation error');
      await this.store.finishValidation(challenge, authorization, problem.toDocument());
      return;
    }
    await this.store.finishValidation(challenge, authorization);
  }
}
