import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { CrlBuildLeaseStore } from '../stores/crl-build-lease.store';

/**
 * How long a CA's build lease lasts unless renewed. The holder renews it every
 * CRL_BUILD_LEASE_MS / 3 while it builds (builds of 100,000 entries take seconds), so a replica
 * that crashed mid-build holds up the CA's next CRL for at most this long. A holder that
 * could not renew in time stays correct: the CRL number is still taken under the row lock
 * (CrlPublisher); its build only loses the number and is retried.
 */
export const CRL_BUILD_LEASE_MS = 6_000;

/** Injection token of a lease length other than CRL_BUILD_LEASE_MS (tests). */
export const CRL_BUILD_LEASE_LENGTH = Symbol('CRL_BUILD_LEASE_LENGTH');

/** How often a replica waiting for another's build looks again. */
const RETRY_MS = 100;

/**
 * One CRL builder per CA across the replicas of revocation: a lease on the CA's
 * `crl_issuers` row (owner and expiry, on the database clock). Without it two replicas that both
 * see a revocation build, have signed and store the same CRL number; one loses and builds again.
 */
@Injectable()
export class CrlBuildLease {
  /** This replica in `build_lease_owner`. */
  private readonly owner = randomUUID();
  /** Renewal timers of the leases this replica holds, per CA. */
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly store: CrlBuildLeaseStore,
    @Optional() @Inject(CRL_BUILD_LEASE_LENGTH) private readonly leaseMs: number = CRL_BUILD_LEASE_MS,
  ) {}

  /**
   * Waits until this replica holds the CA's lease. Returns false when the CA is no CRL
   * issuer (nothing to build). A build that starts after another replica's sees its changes too.
   */
  async acquire(caId: string): Promise<boolean> {
    for (;;) {
      if (await this.store.take(caId, this.owner, this.leaseMs)) {
        this.keepRenewing(caId);
        return true;
      }
      if (!(await this.store.issuerExists(caId))) return false;
      await sleep(RETRY_MS);
    }
  }

  async release(caId: string): Promise<void> {
    clearInterval(this.renewals.get(caId));
    this.renewals.delete(caId);
    await this.store.release(caId, this.owner);
  }

  private keepRenewing(caId: string): void {
    clearInterval(this.renewals.get(caId));
    const timer = setInterval(() => {
      this.store.renew(caId, this.owner, this.leaseMs).catch(() => undefined); // the next renewal tries again; a lapse is safe (see above)
    }, this.leaseMs / 3);
    timer.unref();
    this.renewals.set(caId, timer);
  }
}
