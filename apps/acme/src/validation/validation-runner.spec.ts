import { createLogger } from '@ca/observability';
import { OrderStore } from '../stores/order.store';
import { ChallengeValidators } from './challenge-validators';
import { ValidationRunner } from './validation-runner';
import { AcmeProblem } from '../protocol/acme-problem';

describe('ValidationRunner', () => {
  it('runs at most its pool size at once, queues a bounded number more, and runs them all', async () => {
    let inFlight = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const finished: string[] = [];
    const store = {
      findChallenge: async (_tenantId: string, id: string) => ({
        challenge: { id, type: 'http-01', token: 't', status: 'processing' },
        authorization: { id: `a-${id}`, identifier: 'x.example.test' },
      }),
      finishValidation: async (challenge: { id: string }) => void finished.push(challenge.id),
      abandonValidation: async () => undefined,
    } as unknown as OrderStore;
    const validators = {
      validate: () => {
        most = Math.max(most, ++inFlight);
        return new Promise<void>((resolve) =>
          releases.push(() => {
            inFlight--;
            resolve();
          }),
        );
      },
    } as unknown as ChallengeValidators;
    const runner = new ValidationRunner(
      store,
      validators,
      createLogger({ service: 'acme', level: 'silent' }),
      2,
      3,
    );
    const job = (challengeId: string) => ({
      tenantId: 't',
      challenge: { id: challengeId, type: 'http-01', token: 't' },
      authorization: { id: `a-${challengeId}`, orderId: 'o', identifier: 'x.example.test' },
      keyAuthorization: 'k',
      allowedDnsSuffixes: null,
    });
    for (const id of ['1', '2', '3', '4', '5']) {
      expect(runner.hasRoom()).toBe(true);
      void runner.start(job(id));
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(releases).toHaveLength(2);
    expect(runner.hasRoom()).toBe(false);
    while (finished.length < 5) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    expect(most).toBe(2);
    expect(finished.sort()).toEqual(['1', '2', '3', '4', '5']);
    expect(runner.hasRoom()).toBe(true);
  });

  it('resolves each start with the outcome it recorded, so a challenge POST can answer it', async () => {
    const recorded: unknown[] = [];
    const store = {
      finishValidation: async (_c: unknown, _a: unknown, error?: object) =>
        void recorded.push(error ?? 'valid'),
      abandonValidation: async () => undefined,
    } as unknown as OrderStore;
    const validators = {
      validate: async (_type: string, { name }: { name: string }) => {
        if (name === 'bad.example.test') throw new AcmeProblem('incorrectResponse', 'wrong answer');
      },
    } as unknown as ChallengeValidators;
    const runner = new ValidationRunner(
      store,
      validators,
      createLogger({ service: 'acme', level: 'silent' }),
    );
    const job = (identifier: string) => ({
      tenantId: 't',
      challenge: { id: identifier, type: 'http-01', token: 't' },
      authorization: { id: 'a', orderId: 'o', identifier },
      keyAuthorization: 'k',
      allowedDnsSuffixes: null,
    });
    const good = await runner.start(job('good.example.test'));
    expect(good).toEqual({ status: 'valid', validatedAt: expect.any(Date) });
    const bad = await runner.start(job('bad.example.test'));
    expect(bad).toMatchObject({
      status: 'invalid',
      error: { type: 'urn:ietf:params:acme:error:incorrectResponse' },
    });
    expect(recorded).toHaveLength(2);
  });
});
