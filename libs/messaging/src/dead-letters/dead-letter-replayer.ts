import { Logger } from '@nestjs/common';
import { EventHandler, EventRoutes, deliveryOf } from '../events/event-bus';
import { DeadLetterStore } from './dead-letters';

/** How often a consumer looks for replays an operator asked for. */
export const DEFAULT_REPLAY_POLL_MS = 5_000;

/**
 * Applies again, through the consumer's own handlers, the dead letters an operator asked to replay
 * (`npm run ops -- events dead-letters replay <id>`): on success the row goes; on failure it stays
 * with one more attempt and the new reason. A replayed event is applied after the events of its
 * tenant that came later (it was set aside); the inbox still applies it at most once.
 */
export class DeadLetterReplayer {
  private readonly logger = new Logger('DeadLetters');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private readonly handle: EventHandler;

  constructor(
    private readonly store: DeadLetterStore,
    private readonly consumer: string,
    handler: EventHandler | EventRoutes,
    private readonly pollMs = DEFAULT_REPLAY_POLL_MS,
  ) {
    this.handle = deliveryOf(handler).single;
  }

  start(): void {
    this.timer = setInterval(() => void this.runLogged(), this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Replays what was asked for; returns how many were applied. */
  async runOnce(): Promise<number> {
    let applied = 0;
    for (const letter of await this.store.replaysOf(this.consumer)) {
      try {
        await this.handle(letter.event);
        await this.store.drop(letter.id);
        applied++;
        this.logger.log({ consumer: this.consumer, eventId: letter.eventId }, 'dead letter replayed');
      } catch (err) {
        await this.store.replayFailed(letter.id, err instanceof Error ? err.message : String(err));
        this.logger.warn(
          { err, consumer: this.consumer, eventId: letter.eventId },
          'dead letter replay failed',
        );
      }
    }
    return applied;
  }

  private runLogged(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.runOnce()
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'dead letter replays not read; the next poll retries');
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }
}
