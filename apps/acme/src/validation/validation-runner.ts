import { Logger } from '@ca/observability';
import { AcmeProblem } from '../protocol/acme-problem';
import { OrderStore, Authorization, Challenge } from '../stores/order.store';
import { ChallengeValidators } from './challenge-validators';

/** Validations under way at once per replica: each holds a socket for at most its deadline. */
export const MAX_VALIDATIONS_IN_FLIGHT = 32;
/** Validations waiting for a slot per replica; past that, a challenge POST is answered 503. */
export const MAX_VALIDATIONS_QUEUED = 1024;

export interface ValidationJob {
  tenantId: string;
  /** The challenge and its authorization as the challenge POST read them (not read again). */
  challenge: Pick<Challenge, 'id' | 'type' | 'token'>;
  authorization: Pick<Authorization, 'id' | 'orderId' | 'identifier'>;
  keyAuthorization: string;
  /** The tenant's allowed DNS suffixes when the validation was asked for (null: any name). */
  allowedDnsSuffixes: readonly string[] | null;
}

/** How a validation ended, as recorded: the challenge's new status and its error when invalid. */
export interface ValidationOutcome {
  status: 'valid' | 'invalid';
  validatedAt?: Date;
  error?: object;
}

/**
 * Runs challenge validations (RFC 8555 7.5.1) off the request, at most
 * `maxInFlight` at once and `maxQueued` waiting, records each outcome, and lets the service wait
 * for the ones under way when it stops (those still waiting are put back to pending, to be asked
 * again).
 */
export class ValidationRunner {
  private readonly running = new Set<Promise<void>>();
  private readonly queue: { job: ValidationJob; done: (outcome: ValidationOutcome | undefined) => void }[] =
    [];
  private stopped = false;

  constructor(
    private readonly store: OrderStore,
    private readonly validators: ChallengeValidators,
    private readonly logger: Logger,
    private readonly maxInFlight = MAX_VALIDATIONS_IN_FLIGHT,
    private readonly maxQueued = MAX_VALIDATIONS_QUEUED,
  ) {}

  /** Whether one more validation can be taken now (run or queued). */
  hasRoom(): boolean {
    return !this.stopped && this.queue.length < this.maxQueued;
  }

  /**
   * Queues the validation; resolves with its recorded outcome once it has run (undefined when it
   * was given back unrun at a stop, or its outcome could not be recorded).
   */
  start(job: ValidationJob): Promise<ValidationOutcome | undefined> {
    return new Promise((done) => {
      this.queue.push({ job, done });
      this.next();
    });
  }

  /** Waits for the validations under way; the queued ones are given back as pending. */
  async idle(): Promise<void> {
    this.stopped = true;
    const waiting = this.queue.splice(0);
    await Promise.all(
      waiting.map(({ job, done }) => {
        done(undefined);
        return this.store
          .abandonValidation(job.challenge.id)
          .catch((err: unknown) =>
            this.logger.warn({ err, challengeId: job.challenge.id }, 'ACME validation left processing'),
          );
      }),
    );
    await Promise.all([...this.running]);
  }

  private next(): void {
    while (!this.stopped && this.running.size < this.maxInFlight && this.queue.length > 0) {
      const { job, done } = this.queue.shift()!;
      const run = this.run(job).then(done, (err: unknown) => {
        done(undefined);
        this.logger.error({ err, challengeId: job.challenge.id }, 'recording an ACME validation failed');
      });
      this.running.add(run);
      void run.finally(() => {
        this.running.delete(run);
        this.next();
      });
    }
  }

  private async run({
    challenge,
    authorization,
    keyAuthorization,
    allowedDnsSuffixes,
  }: ValidationJob): Promise<ValidationOutcome> {
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
        this.logger.warn({ err: error, challengeId: challenge.id }, 'ACME validation error');
      const document = problem.toDocument();
      await this.store.finishValidation(challenge, authorization, document);
      return { status: 'invalid', error: document };
    }
    const validatedAt = new Date();
    await this.store.finishValidation(challenge, authorization, undefined, validatedAt);
    return { status: 'valid', validatedAt };
  }
}
