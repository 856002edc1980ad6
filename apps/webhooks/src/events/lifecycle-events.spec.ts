import { CertificateIssuedPayload, CertificateRevokedPayload, EventEnvelope } from '@ca/contracts';
import { ExpiryScanner } from '../expiry/expiry-scanner';
import { MemoryWebhooksDatabase } from '../stores/memory-stores';
import { LifecycleEvents } from './lifecycle-events';

const TENANT = '0b6c3a4e-2f1d-4c8b-9a7e-5d4c3b2a1f00';
const DAY = 86_400_000;
let nextId = 0;

function envelope<P>(type: string, payload: P): EventEnvelope<P> {
  const id = `00000000-0000-4000-8000-${String(++nextId).padStart(12, '0')}`;
  return { id, type, tenantId: TENANT, occurredAt: '2031-01-01T00:00:00.000Z', payload };
}

function issued(certificateId: string, extra: Partial<CertificateIssuedPayload> = {}) {
  return envelope<CertificateIssuedPayload>('certificate.issued', {
    tenantId: TENANT,
    certificateId,
    caId: 'ca-1',
    serialNumber: `0${certificateId}`,
    notBefore: '2031-01-01T00:00:00.000Z',
    notAfter: '2031-03-01T00:00:00.000Z',
    commonName: `${certificateId}.example.com`,
    subjectAlternativeNames: [`${certificateId}.example.com`],
    ...extra,
  });
}

/** A tenant with one subscription to `events`; the lifecycle consumer and expiry scan on in-memory stores. */
async function subscribedTo(events: string[], expiringDays: number[] = []) {
  const database = new MemoryWebhooksDatabase();
  await database.subscriptions.add(TENANT, {
    id: 'sub-1',
    url: 'https://hooks.example.com/',
    events,
    expiringDays,
    sealedSecret: Buffer.alloc(1),
  });
  let queued = 0;
  const lifecycle = new LifecycleEvents(database, () => queued++);
  const sent = () =>
    database.messages.rows.map((m) => JSON.parse(m.body) as { type: string; data: Record<string, unknown> });
  return { database, lifecycle, sent, queued: () => queued };
}

describe('lifecycle events to webhooks', () => {
  it('queues an issued certificate once, however often the event is delivered', async () => {
    const { lifecycle, sent, queued } = await subscribedTo(['certificate.issued']);
    const event = issued('c1');
    await lifecycle.issued([event, event]);
    await lifecycle.issued([event]);
    expect(sent()).toEqual([
      {
        type: 'certificate.issued',
        timestamp: event.occurredAt,
        data: expect.objectContaining({
          certificateId: 'c1',
          commonName: 'c1.example.com',
          status: 'Active',
        }),
      },
    ]);
    expect(queued()).toBe(1);
  });

  it('announces a renewal as certificate.renewed, and its predecessor gets no expiry notices any more', async () => {
    const { database, lifecycle, sent } = await subscribedTo(
      ['certificate.renewed', 'certificate.expiring'],
      [30],
    );
    await lifecycle.issued([issued('old', { notAfter: '2031-01-20T00:00:00.000Z' })]);
    await lifecycle.issued([issued('new', { renewedFrom: 'old' })]);
    expect(sent().map((m) => [m.type, m.data.renewedFrom])).toEqual([['certificate.renewed', 'old']]);
    const scanner = new ExpiryScanner(
      database,
      60_000,
      () => undefined,
      () => undefined,
      () => new Date('2031-01-05T00:00:00Z'),
    );
    await scanner.scan();
    expect(sent()).toHaveLength(1);
  });

  it("tells of a revoked certificate it never watched from the event's own fields", async () => {
    const { lifecycle, sent } = await subscribedTo(['certificate.revoked']);
    await lifecycle.revoked([
      envelope<CertificateRevokedPayload>('certificate.revoked', {
        tenantId: TENANT,
        certificateId: 'unseen',
        serialNumber: '0abc',
        revokedAt: '2031-01-02T00:00:00.000Z',
        reasonCode: 1,
      } as CertificateRevokedPayload),
    ]);
    expect(sent()).toEqual([
      expect.objectContaining({
        data: {
          tenantId: TENANT,
          certificateId: 'unseen',
          serialNumber: '0abc',
          status: 'Revoked',
          revokedAt: '2031-01-02T00:00:00.000Z',
          reasonCode: 'keyCompromise',
        },
      }),
    ]);
  });

  it('sends certificate.expiring once for the smallest threshold crossed, then certificate.expired', async () => {
    const { database, lifecycle, sent } = await subscribedTo(
      ['certificate.expiring', 'certificate.expired'],
      [30, 7],
    );
    await lifecycle.issued([issued('c1', { notAfter: '2031-01-10T00:00:00.000Z' })]);
    let now = new Date('2031-01-05T00:00:00Z');
    const scanner = new ExpiryScanner(
      database,
      60_000,
      () => undefined,
      () => undefined,
      () => now,
    );
    await scanner.scan();
    await scanner.scan();
    now = new Date(Date.parse('2031-01-10T00:00:00Z') + DAY);
    await scanner.scan();
    await scanner.scan();
    expect(sent().map((m) => [m.type, m.data.daysLeft, m.data.status])).toEqual([
      ['certificate.expiring', 5, 'Active'],
      ['certificate.expired', undefined, 'Expired'],
    ]);
  });
});
