import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CrlPublisher } from './crl.publisher';
import { CRL_VALIDITY_MS } from './crl-signing';
import { RootCrlPublisher } from './root-crl.publisher';

/**
 * Re-signs every CA's CRL before it goes stale (RFC 5280 5.1.2.5: a new CRL is issued at or
 * before nextUpdate), at half its validity, even when nothing changed. Also publishes the first
 * CRL of an issuer that has none yet (an empty CRL as soon as a CA exists), and retries a CRL
 * whose build after a revocation failed (its entry count differs from the ledger's).
 */
export class CrlRefreshScheduler {
  private readonly logger = new Logger('CrlRefreshScheduler');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly publisher: CrlPublisher,
    private readonly rootPublisher?: RootCrlPublisher,
    private readonly intervalMs = 60_000,
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
      // Every CA that signs or signed leaves, retired ones too, until it expires.
      const due: { ca_id: string }[] = await this.dataSource.query(
        `SELECT i.ca_id FROM revocation.crl_issuers i
          LEFT JOIN LATERAL (SELECT next_update, entry_count FROM revocation.crls c
                              WHERE c.ca_id = i.ca_id ORDER BY crl_number DESC LIMIT 1) latest ON true
          WHERE i.ca_not_after > now()
            AND (latest.next_update IS NULL OR latest.next_update < $1
                 OR latest.entry_count <> (SELECT count(*) FROM revocation.revoked_certificates r WHERE r.ca_id = i.ca_id))`,
        [new Date(Date.now() + CRL_VALIDITY_MS / 2)],
      );
      for (const { ca_id } of due) await this.publisher.request(ca_id);
      if (this.rootPublisher) {
        // root.crl: never published, due for re-signing, or missing a revoked issuing CA.
        const dueRoots: { tenant_id: string }[] = await this.dataSource.query(
          `SELECT i.tenant_id FROM revocation.root_crl_issuers i
            WHERE i.ca_not_after > now()
              AND (i.next_update IS NULL OR i.next_update < $1
                   OR i.entry_count <> (SELECT count(*) FROM revocation.revoked_cas r WHERE r.tenant_id = i.tenant_id))`,
          [new Date(Date.now() + CRL_VALIDITY_MS / 2)],
        );
        for (const { tenant_id } of dueRoots) await this.rootPublisher.request(tenant_id);
      }
    } catch (err) {
      this.logger.warn({ err }, 'CRL refresh check failed');
    }
  }
}
