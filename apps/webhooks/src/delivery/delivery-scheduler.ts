import { ClaimedMessage, DeliveryQueue, Settlement } from './delivery-queue';
import { SendOutcome } from './http-sender';
import { nextAttemptAt } from './retry-schedule';

export interface DeliverySchedulerOptions {
  /** Attempts in flight at once in this replica. */
  concurrency: number;
  /** Attempts in flight at once for one subscription: a slow endpoint holds no more slots than this. */
  perSubscription: number;
  /** WEBHOOK_RETRY_BASE_SECONDS, in ms. */
  retryBaseMs: number;
  /** How often the queue is looked at without a nudge (other replicas' events, due retries). */
  pollMs: number;
  now?: () => Date;
  onSettled?: (message: ClaimedMessage, outcome: SendOutcome, settlement: Settlement) => void;
  onError?: (err: unknown) => void;
}

/**
 * Sends due messages with bounded concurrency: per-subscription limits keep a slow or dead
 * endpoint from holding the slots another subscription's (or tenant's) deliveries need, and a
 * failed attempt is retried later (exponential backoff) instead of being waited for.
 */
export class DeliveryScheduler {
  private readonly inFlight = new Map<string, number>();
  private total = 0;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;
  private readonly attempts = new Set<Promise<void>>();
  private readonly now: () => Date;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly attempt: (message: ClaimedMessage) => Promise<SendOutcome>,
    private readonly options: DeliverySchedulerOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  start(): void {
    this.running = true;
    this.schedule();
    this.nudge();
  }

  /** Looks at the queue now (new messages were committed in this process). */
  nudge(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => {
        this.pumping = undefined;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** Stops claiming and waits for the attempts in flight to settle. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.pumping;
    await Promise.all([...this.attempts]);
  }

  /** Resolves once nothing is in flight (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.pumping;
    await Promise.all([...this.attempts]);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.nudge();
      if (this.running) this.schedule();
    }, this.options.pollMs);
    this.timer.unref?.();
  }

  private async pump(): Promise<void> {
    const { concurrency, perSubscription } = this.options;
    while (this.running && this.total < concurrency) {
      const full = [...this.inFlight].filter(([, n]) => n >= perSubscription).map(([id]) => id);
      const claimed = await this.queue.claim(concurrency - this.total, perSubscription, full);
      if (claimed.length === 0) return;
      const extra: string[] = [];
      for (const message of claimed) {
        const busy = this.inFlight.get(message.subscriptionId) ?? 0;
        if (busy >= perSubscription || this.total >= concurrency || !this.running) {
          extra.push(message.id);
          continue;
        }
        this.inFlight.set(message.subscriptionId, busy + 1);
        this.total++;
        const done = this.run(message).finally(() => {
          this.attempts.delete(done);
          const left = (this.inFlight.get(message.subscriptionId) ?? 1) - 1;
          if (left > 0) this.inFlight.set(message.subscriptionId, left);
          else this.inFlight.delete(message.subscriptionId);
          this.total--;
          // A slot is free, and the next message of this certificate may be due now.
          this.nudge();
        });
        this.attempts.add(done);
      }
      await this.queue.release(extra);
      if (extra.length > 0) return;
    }
  }

  private async run(message: ClaimedMessage): Promise<void> {
    let outcome: SendOutcome;
    try {
      outcome = await this.attempt(message);
    } catch (err) {
      outcome = { error: err instanceof Error ? err.message.slice(0, 200) : 'failed', durationMs: 0 };
    }
    const ok = outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;
    let settlement: Settlement;
    if (ok) settlement = { delivered: true };
    else {
      const retryAt = nextAttemptAt(
        message.attempts + 1,
        message.createdAt,
        this.now(),
        this.options.retryBaseMs,
      );
      settlement = retryAt ? { retryAt } : { failed: true };
    }
    try {
      await this.queue.settle(message, outcome, settlement);
      this.options.onSettled?.(message, outcome, settlement);
    } catch (err) {
      // Not recorded: the claim lapses and the message is tried again (at least once).
      this.options.onError?.(err);
    }
  }
}
