import { EventBus } from '@ca/messaging';
import { ocspMetrics } from '@ca/observability';
import { MemoryServedCrlStore } from './memory-stores';
import { registerResponderGauges } from './observability';

const TENANT = '3f1c2b4a-0d5e-4f6a-8b7c-9d0e1f2a3b4c';
const SKEWED_TENANT = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

describe('responder gauges', () => {
  const events = { pending: async () => 0 } as unknown as EventBus;

  it("reports the age of each tenant's CRL, never below zero, until the responder stops", async () => {
    const crls = new MemoryServedCrlStore();
    crls.served.set(`ocsp.crls:${TENANT}`, new Date(Date.now() - 3_600_000));
    // thisUpdate ahead of this clock (the signer's clock runs fast): not a negative age.
    crls.served.set(`ocsp.crls:${SKEWED_TENANT}`, new Date(Date.now() + 60_000));
    const unregister = registerResponderGauges(crls, events, 'ocsp-responder');
    const ages = new Map(
      (await ocspMetrics.crlAge.samples()).map((sample) => [sample.labels.tenant, sample.value]),
    );
    expect(ages.get(TENANT)).toBeGreaterThanOrEqual(3_600);
    expect(ages.get(TENANT)).toBeLessThan(7_200);
    expect(ages.get(SKEWED_TENANT)).toBe(0);
    unregister();
    expect(await ocspMetrics.crlAge.samples()).toEqual([]);
  });
});
