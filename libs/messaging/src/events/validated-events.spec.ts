import { randomUUID } from 'node:crypto';
import { EventEnvelope, EventType } from '@ca/contracts';
import { rejectedEventsTotal, routeValidated, validatedBatch } from './validated-events';

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

describe('routeValidated and validatedBatch', () => {
  it('hands well-formed events to their handler and sets malformed ones aside, counted, without throwing', async () => {
    const applied: unknown[] = [];
    const route = routeValidated('test', {
      [EventType.TenantUpdated]: async (event) => void applied.push(event.payload),
    });
    const before = await rejected();
    await route(tenantUpdated(5));
    await expect(route(tenantUpdated('lots'))).resolves.toBeUndefined();
    await route({ ...tenantUpdated(1), type: 'ca.initialized' }); // not handled here: skipped unread
    expect(applied).toHaveLength(1);
    expect(await rejected()).toBe(before + 1);
  });

  it('passes only the well-formed events of a run to a batch handler', async () => {
    const runs: number[] = [];
    const batch = validatedBatch('test', async (events) => void runs.push(events.length));
    await batch([tenantUpdated(1), tenantUpdated(-1), tenantUpdated(2)]);
    await batch([tenantUpdated(null)]);
    expect(runs).toEqual([2]);
  });
});
