import { EventEnvelope, TenantUpdatedPayload } from '@ca/contracts';
import { RefusedEvent } from '@ca/messaging';
import { IssuanceDatabase } from '../issuance-database.store';

/** How far a tenant.updated may be ahead of this clock (the gateway's clock may run ahead a little). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** The durable consumer through which issuance learns the gateway's tenant facts. */
export const ISSUANCE_CONSUMER = 'issuance';

/**
 * issuance.tenants: the newest `tenant.updated` of each tenant (status and effective plan limit),
 * which issue and renew enforce themselves (certificate-limit.ts) instead of trusting a command.
 * Each event is applied once (inbox); an older fact never overwrites a newer one (`updatedAt`, the
 * gateway's change time), so a late redelivery cannot resume a suspended tenant. A fact dated
 * ahead of the clock is refused, and one stored before that rule loses to the next real change,
 * so `npm run ops -- tenant resume` always wins.
 */
export class TenantProjection {
  constructor(
    private readonly database: IssuanceDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async apply(event: EventEnvelope<TenantUpdatedPayload>): Promise<void> {
    const { updatedAt } = event.payload;
    // A fact dated ahead of the clock would outrank every real change after it (a suspension
    // dated 9999 that no resume could lift): refused and set aside.
    if (new Date(updatedAt).getTime() > this.now().getTime() + MAX_CLOCK_SKEW_MS)
      throw new RefusedEvent(
        `tenant.updated dated ${updatedAt}, ahead of this clock by more than the allowed skew`,
      );
    await this.database.applyOnce(event, ({ tenants }) => tenants.record(event.payload, MAX_CLOCK_SKEW_MS));
  }
}
