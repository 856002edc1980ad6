import { Logger } from '@ca/observability';
import { AcmeProblem } from '../protocol/acme-problem';
import { AcmeStore } from '../protocol/acme-store';
import { ChallengeValidators } from './challenge-validators';

/**
 * Runs challenge validations in the background (RFC 8555 7.5.1: the client polls), records each
 * outcome, and lets the service wait for the ones under way when it stops.
 */
export class ValidationRunner {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly store: AcmeStore,
    private readonly validators: ChallengeValidators,
    private readonly logger: Logger,
  ) {}

  start(tenantId: string, challengeId: string, keyAuthorization: string): void {
    const run = this.run(tenantId, challengeId, keyAuthorization).catch((err: unknown) =>
      this.logger.error({ err, challengeId }, 'recording an ACME validation failed'),
    );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  private async run(tenantId: string, challengeId: string, keyAuthorization: string): Promise<void> {
    const found = await this.store.findChallenge(tenantId, challengeId);
    if (!found) return;
    const { challenge, authorization } = found;
    try {
      await this.validators.validate(challenge.type, {
        // RFC 8555 7.1.3: a wildcard's authorization proves control of the name below `*.`.
        name: authorization.identifier.replace(/^\*\./, ''),
        token: challenge.token,
        keyAuthorization,
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
