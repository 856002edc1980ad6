import { Logger } from '@ca/observability';
import { SharedAcmeRateLimiter } from './protocol/acme-rate-limiter';
import { OrderStore } from './stores/order.store';
import { NonceStore } from './protocol/nonce-store';

const EVERY_MS = 60_000;

/**
 * Prunes expired nonces, unfinished orders past their expiry and rate-limit windows that are over,
 * once a minute. Every replica runs it; the deletes are idempotent.
 */
export class AcmeHousekeeping {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly nonces: NonceStore,
    private readonly store: OrderStore,
    private readonly limiter: Pick<SharedAcmeRateLimiter, 'removeOldWindows'>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => (this.running = undefined));
    }, EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    try {
      const nonces = await this.nonces.prune();
      const orders = await this.store.pruneExpiredOrders();
      const windows = await this.limiter.removeOldWindows();
      if (nonces + orders + windows > 0) this.logger.debug({ nonces, orders, windows }, 'ACME housekeeping');
    } catch (err) {
      this.logger.warn({ err }, 'ACME housekeeping failed; retried in a minute');
    }
  }
}
