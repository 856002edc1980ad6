import { randomUUID } from 'node:crypto';
import { EventEnvelope, EventType, OcspSignerCertifiedPayload } from '@ca/contracts';
import { ocspMetrics } from '@ca/observability';
import { MemoryRequestedSignerStore } from '../memory-stores';
import { SignerAnnouncements } from './signer-announcements';

const TENANT = '3f1c2b4a-0d5e-4f6a-8b7c-9d0e1f2a3b4c';
const OTHER_TENANT = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const KEY = 'ab'.repeat(32);

function announced(publicKeySha256: string, tenantId = TENANT): EventEnvelope<OcspSignerCertifiedPayload> {
  return {
    id: randomUUID(),
    type: EventType.OcspSignerCertified,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      caId: randomUUID(),
      serialNumber: '01',
      publicKeySha256,
      notAfter: new Date(Date.now() + 86_400_000).toISOString(),
      certifiedAt: new Date().toISOString(),
    },
  };
}

async function unrequestedCount(): Promise<number> {
  return (await ocspMetrics.unrequestedSignersTotal.get()).values[0]?.value ?? 0;
}

describe('OCSP signer announcements', () => {
  let requested: MemoryRequestedSignerStore;
  let announcements: SignerAnnouncements;

  beforeEach(async () => {
    requested = new MemoryRequestedSignerStore();
    await requested.record(KEY, TENANT);
    announcements = new SignerAnnouncements(requested);
  });

  it('accepts a signer of a key the responder asked for, whatever the case of its hash', async () => {
    const before = await unrequestedCount();
    expect(await announcements.check(announced(KEY.toUpperCase()))).toBe(true);
    expect(await unrequestedCount()).toBe(before);
  });

  it('reports a signer of a key nobody here asked for', async () => {
    const before = await unrequestedCount();
    expect(await announcements.check(announced('cd'.repeat(32)))).toBe(false);
    expect(await unrequestedCount()).toBe(before + 1);
  });

  it('reports a signer of our key certified for another tenant', async () => {
    const before = await unrequestedCount();
    expect(await announcements.check(announced(KEY, OTHER_TENANT))).toBe(false);
    expect(await unrequestedCount()).toBe(before + 1);
  });
});
