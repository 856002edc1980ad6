import { randomUUID } from 'node:crypto';
import { CaError, EventType, MAX_DIRECT_REVOCATIONS } from '@ca/contracts';
import { checkedRevocations } from './direct-revocations.controller';

/** The direct path's message is checked whole, as an HTTP body: nothing from the bus is trusted. */
describe('checkedRevocations', () => {
  const tenantId = randomUUID();
  const event = (tenant = tenantId, type: string = EventType.CertificateRevoked) => ({
    id: randomUUID(),
    type,
    tenantId: tenant,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: tenant,
      caId: randomUUID(),
      certificateId: randomUUID(),
      serialNumber: '0A1B',
      revokedAt: new Date().toISOString(),
      reasonCode: 5,
    },
  });
  const fieldsOf = (command: unknown): string[] => {
    try {
      checkedRevocations(command);
    } catch (error) {
      expect(error).toBeInstanceOf(CaError);
      return ((error as CaError).errors ?? []).map((e) => e.field);
    }
    return [];
  };

  it('takes 1 to MAX_DIRECT_REVOCATIONS certificate.revoked envelopes of one tenant', () => {
    const events = Array.from({ length: MAX_DIRECT_REVOCATIONS }, () => event());
    expect(checkedRevocations({ events })).toHaveLength(MAX_DIRECT_REVOCATIONS);
  });

  it('refuses anything else, naming the field', () => {
    expect(fieldsOf(null)).toEqual(['']);
    expect(fieldsOf([event()])).toEqual(['']);
    expect(fieldsOf({ events: [] })).toEqual(['events']);
    expect(fieldsOf({ events: Array.from({ length: MAX_DIRECT_REVOCATIONS + 1 }, () => event()) })).toEqual([
      'events',
    ]);
    expect(fieldsOf({ events: [event()], awaitCrls: true })).toEqual(['awaitCrls']);
    expect(fieldsOf({ events: [event(), event(tenantId, EventType.CertificateHoldReleased)] })).toEqual([
      'events[1]',
    ]);
    expect(fieldsOf({ events: [event(), { ...event(), tenantId: randomUUID() }] })).toEqual(['events[1]']);
    expect(fieldsOf({ events: [event(), { ...event(), id: 'x' }] })).toEqual(['events[1]']);
    expect(fieldsOf({ events: [event(), event(randomUUID())] })).toEqual(['events']);
  });
});
