import { randomUUID } from 'node:crypto';
import { EventEnvelope, EventType } from '@ca/contracts';
import { deliveryOf } from './event-bus';
import { rejectedEventsTotal, routeValidated } from './validated-events';

const tenantId = randomUUID();
const tenantUpdated = (certificateLimit: unknown): EventEnvelope => ({
  id: randomUUID(),
  type: EventType.TenantUpdated,
  tenantId,
  occurredAt: new Date().toISOString(),
  payload: { tenantId, status: 'active', certificateLimit, updatedAt: new Date().toISOString() },
});

const rejected = async () =>
  (await rejectedEventsTotal.get()).values.find(
    (v) => v.labels.consumer === 'test' && v.labels.type === EventType.TenantUpdated,
  )?.value ?? 0;

describe('routeValidated', () => {
  it('hands well-formed events to their handler and sets malformed ones aside, counted, without throwing', async () => {
    const applied: number[] = [];
    // Typed by the event map: the payload is a TenantUpdatedPayload, no cast.
    const route = deliveryOf(
      routeValidated('test', {
        [EventType.TenantUpdated]: async (events) =>
          void applied.push(...events.map((e) => e.payload.certificateLimit)),
      }),
    ).single;
    const before = await rejected();
    await route(tenantUpdated(5));
    await expect(route(tenantUpdated('lots'))).resolves.toBeUndefined();
    await route({ ...tenantUpdated(1), type: 'ca.initialized' }); // not handled here: skipped unread
    expect(applied).toEqual([5]);
    expect(await rejected()).toBe(before + 1);
  });

  it('passes only the well-formed events of a run to its handler', async () => {
    const runs: number[] = [];
    const { runs: handlers } = deliveryOf(
      routeValidated('test', { [EventType.TenantUpdated]: async (events) => void runs.push(events.length) }),
    );
    const batch = handlers[EventType.TenantUpdated];
    await batch([tenantUpdated(1), tenantUpdated(-1), tenantUpdated(2)]);
    await batch([tenantUpdated(null)]);
    expect(runs).toEqual([2]);
  });
});
