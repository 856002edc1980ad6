import { randomBytes } from 'node:crypto';
import { LocalSpentNonces, NonceStore } from './nonce-store';

const TENANT = '0b9d5c4e-5f4a-4d61-9a43-2f7b1c0e8a11';

describe('NonceStore with LocalSpentNonces (embedded mode: one process)', () => {
  it('accepts each nonce once, in any order, and refuses a replay', async () => {
    const nonces = new NonceStore(randomBytes(32), new LocalSpentNonces());
    const issued = await Promise.all(Array.from({ length: 50 }, () => nonces.issue(TENANT)));
    expect(new Set(issued).size).toBe(50);
    for (const nonce of [...issued].reverse()) expect(await nonces.consume(TENANT, nonce)).toBe(true);
    for (const nonce of issued) expect(await nonces.consume(TENANT, nonce)).toBe(false);
  });

  it("refuses another tenant's, another process's (key) and an altered nonce, and one that has expired", async () => {
    let now = Date.UTC(2031, 0, 1);
    const nonces = new NonceStore(randomBytes(32), new LocalSpentNonces(), 60_000, () => new Date(now));
    const nonce = await nonces.issue(TENANT);
    expect(await nonces.consume('5e0f3a2b-8c1d-4e7f-a6b5-9d8c7b6a5f40', nonce)).toBe(false);
    const restarted = new NonceStore(randomBytes(32), new LocalSpentNonces(), 60_000, () => new Date(now));
    await restarted.issue(TENANT);
    expect(await restarted.consume(TENANT, nonce)).toBe(false);
    const altered = Buffer.from(nonce, 'base64url');
    altered[6] ^= 1; // the serial: would name another nonce
    expect(await nonces.consume(TENANT, altered.toString('base64url'))).toBe(false);
    expect(await nonces.consume(TENANT, nonce)).toBe(true);
    const late = await nonces.issue(TENANT);
    now += 61_000;
    expect(await nonces.consume(TENANT, late)).toBe(false);
  });

  it('keeps fixed memory: a nonce older than the window is refused, the newer ones are not', async () => {
    const nonces = new NonceStore(randomBytes(32), new LocalSpentNonces(8));
    const oldest = await nonces.issue(TENANT);
    const rest = await Promise.all(Array.from({ length: 8 }, () => nonces.issue(TENANT)));
    expect(await nonces.consume(TENANT, oldest)).toBe(false);
    for (const nonce of rest) expect(await nonces.consume(TENANT, nonce)).toBe(true);
    for (const nonce of rest) expect(await nonces.consume(TENANT, nonce)).toBe(false);
  });
});
