import { DeliveryScheduler } from './delivery-scheduler';
import { SendOutcome } from './http-sender';
import { ClaimedMessage, DeliveryQueue, Settlement } from './delivery-queue';

/** The queue's contract in memory: due messages, at most `perSubscription` of one subscription per claim. */
class MemoryQueue implements DeliveryQueue {
  readonly settled: { id: string; outcome: SendOutcome; settlement: Settlement }[] = [];
  private readonly claimed = new Set<string>();
  constructor(readonly messages: ClaimedMessage[]) {}

  async claim(limit: number, perSubscription: number, exclude: readonly string[]) {
    const perSub = new Map<string, number>();
    const out: ClaimedMessage[] = [];
    for (const m of this.messages) {
      if (out.length >= limit) break;
      if (
        this.claimed.has(m.id) ||
        this.settled.some((s) => s.id === m.id) ||
        exclude.includes(m.subscriptionId)
      )
        continue;
      const n = perSub.get(m.subscriptionId) ?? 0;
      if (n >= perSubscription) continue;
      perSub.set(m.subscriptionId, n + 1);
      this.claimed.add(m.id);
      out.push(m);
    }
    return out;
  }

  async release(ids: readonly string[]) {
    for (const id of ids) this.claimed.delete(id);
  }

  async settle(message: ClaimedMessage, outcome: SendOutcome, settlement: Settlement) {
    this.claimed.delete(message.id);
    this.settled.push({ id: message.id, outcome, settlement });
  }
}

const message = (id: string, subscriptionId: string, createdAt = new Date()): ClaimedMessage => ({
  id,
  subscriptionId,
  tenantId: 't',
  url: `https://${subscriptionId}.example.com/`,
  sealedSecret: Buffer.alloc(0),
  type: 'certificate.issued',
  body: '{}',
  attempts: 0,
  createdAt,
});

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!condition()) throw new Error('condition not reached');
};

describe('delivery scheduler', () => {
  let scheduler: DeliveryScheduler | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = undefined;
  });

  it('delivers a healthy subscription while a dead one holds no more than its own slots', async () => {
    const dead = Array.from({ length: 10 }, (_, i) => message(`dead-${i}`, 'dead'));
    const healthy = Array.from({ length: 5 }, (_, i) => message(`ok-${i}`, 'healthy'));
    const queue = new MemoryQueue([...dead, ...healthy]);
    const hanging: (() => void)[] = [];
    let revived = false;
    scheduler = new DeliveryScheduler(
      queue,
      (m) =>
        m.subscriptionId === 'dead' && !revived
          ? new Promise<SendOutcome>((resolve) =>
              hanging.push(() => resolve({ error: 'timeout', durationMs: 10_000 })),
            )
          : Promise.resolve({ statusCode: 204, durationMs: 1 }),
      { concurrency: 4, perSubscription: 2, retryBaseMs: 5_000, pollMs: 10_000 },
    );
    scheduler.start();
    await until(() => queue.settled.filter((s) => s.id.startsWith('ok-')).length === 5);
    expect(hanging).toHaveLength(2);
    expect(queue.settled.every((s) => 'delivered' in s.settlement)).toBe(true);
    // Once the endpoint answers again, its slots free up and the rest of its queue goes out.
    revived = true;
    for (const release of hanging.splice(0)) release();
    await until(() => queue.settled.length === 15);
  });

  it('retries a failed attempt after the base delay, and fails it once 24 hours have passed', async () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const fresh = message('fresh', 'a', new Date(now.getTime() - 1000));
    const old = message('old', 'b', new Date(now.getTime() - 25 * 3600 * 1000));
    const queue = new MemoryQueue([fresh, old]);
    scheduler = new DeliveryScheduler(queue, async () => ({ statusCode: 500, durationMs: 3 }), {
      concurrency: 4,
      perSubscription: 1,
      retryBaseMs: 5_000,
      pollMs: 10_000,
      now: () => now,
    });
    scheduler.start();
    await until(() => queue.settled.length === 2);
    const of = (id: string) => queue.settled.find((s) => s.id === id)!;
    expect(of('fresh').settlement).toEqual({ retryAt: new Date(now.getTime() + 5_000) });
    expect(of('fresh').outcome.statusCode).toBe(500);
    expect(of('old').settlement).toEqual({ failed: true });
  });

  it('counts an attempt that throws as failed and goes on with the next', async () => {
    const queue = new MemoryQueue([message('boom', 'a'), message('fine', 'b')]);
    scheduler = new DeliveryScheduler(
      queue,
      async (m) => {
        if (m.id === 'boom') throw new Error('secret does not open');
        return { statusCode: 200, durationMs: 1 };
      },
      { concurrency: 1, perSubscription: 1, retryBaseMs: 1_000, pollMs: 10_000 },
    );
    scheduler.start();
    await until(() => queue.settled.length === 2);
    const boom = queue.settled.find((s) => s.id === 'boom')!;
    expect(boom.outcome.error).toBe('secret does not open');
    expect('retryAt' in boom.settlement).toBe(true);
    expect(queue.settled.find((s) => s.id === 'fine')!.settlement).toEqual({ delivered: true });
  });

  it('treats a 3xx as a failure (no redirect is followed)', async () => {
    const queue = new MemoryQueue([message('moved', 'a')]);
    scheduler = new DeliveryScheduler(queue, async () => ({ statusCode: 301, durationMs: 1 }), {
      concurrency: 1,
      perSubscription: 1,
      retryBaseMs: 1_000,
      pollMs: 10_000,
    });
    scheduler.start();
    await until(() => queue.settled.length === 1);
    expect('retryAt' in queue.settled[0].settlement).toBe(true);
  });
});
