import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { CrlIssuerStore } from '../stores/crl-issuer.store';
import { RootCrlIssuerStore } from '../stores/root-crl-issuer.store';
import { CrlPublisher } from './crl.publisher';
import { CRL_VALIDITY_MS } from './crl-signing';
import { RootCrlPublisher } from './root-crl.publisher';

/** Injection token of a check interval other than a minute (tests). */
export const CRL_REFRESH_INTERVAL = Symbol('CRL_REFRESH_INTERVAL');

/**
 * Re-signs every CA's CRL before it goes stale (RFC 5280 5.1.2.5: a new CRL is issued at or
 * before nextUpdate), at half its validity, even when nothing changed. Also publishes the first
 * CRL of an issuer that has none yet (an empty CRL as soon as a CA exists), and retries a CRL
 * whose build after a revocation failed (its entry count differs from the ledger's).
 */
@Injectable()
export class CrlRefreshScheduler {
  private readonly logger = new Logger('CrlRefreshScheduler');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly issuers: CrlIssuerStore,
    private readonly rootIssuers: RootCrlIssuerStore,
    private readonly publisher: CrlPublisher,
    private readonly rootPublisher: RootCrlPublisher,
    @Optional() @Inject(CRL_REFRESH_INTERVAL) private readonly intervalMs: number = 60_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    void this.tick();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async tick(): Promise<void> {
    try {
      const before = new Date(Date.now() + CRL_VALIDITY_MS / 2);
      // Every CA that signs or signed leaves, retired ones too, until it expires.
      for (const caId of await this.issuers.dueBefore(before)) await this.publisher.request(caId);
      // root.crl: never published, due for re-signing, or missing a revoked issuing CA.
      for (const tenantId of await this.rootIssuers.dueBefore(before))
        await this.rootPublisher.request(tenantId);
    } catch (err) {
      this.logger.warn({ err }, 'CRL refresh check failed');
    }
  }
}
