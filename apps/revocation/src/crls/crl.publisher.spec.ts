import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import {
  CRL_ENTRY_DIFFERENCES_NAMED,
  CaError,
  CrlEntryDifference,
  ErrorCode,
  IssuanceApi,
  IssuancePattern,
  crlEntryDifferenceError,
  crlNumberUsedError,
} from '@ca/contracts';
import { BlobStore, OutboxRelay, RpcClient } from '@ca/messaging';
import { derToPem, parseCrl, signTbs } from '@ca/pki';
import { TestPki, createTestPki, describeIfOpenssl, spawnOpenssl } from '@ca/pki/testing';
import { LedgerReconciliation } from '../ledger/ledger-reconciliation';
import { MemoryRevocationDatabase } from '../stores/memory-stores';
import { CrlBuildLease } from './crl-build.lease';
import { CrlEntriesCache } from './crl-entries.cache';
import { CrlPacing, CrlPublisher } from './crl.publisher';
import { CRL_VALIDITY_MS, CrlSigning } from './crl-signing';

class MemoryBlobs extends BlobStore {
  readonly blobs = new Map<string, Uint8Array>();

  async put(bytes: Uint8Array): Promise<string> {
    const ref = randomUUID();
    this.blobs.set(ref, new Uint8Array(bytes));
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    return this.blobs.get(ref);
  }

  async delete(ref: string): Promise<void> {
    this.blobs.delete(ref);
  }
}

/** The revocation schema as the publisher uses it: issuers (one per CA), ledger, CRLs and the outbox. */
class FakeRevocationDatabase {
  readonly database = new MemoryRevocationDatabase();
  readonly nextCrlNumber = this.database.issuers.nextCrlNumber;
  readonly crls = this.database.tables.crls.rows;
  readonly outbox = this.database.tables.outbox.events;

  constructor(private readonly caDer: Uint8Array) {}

  addIssuer(caId: string, tenantId: string, nextCrlNumber = 1n): void {
    // Registered at once: the in-memory store waits for nothing.
    void this.database.issuers.register({
      tenantId,
      caId,
      certificateDer: Buffer.from(this.caDer),
      notAfter: '2040-01-01T00:00:00Z',
    });
    this.nextCrlNumber.set(caId, nextCrlNumber);
  }

  revoke(caId: string, serial: string, reasonCode = 1): void {
    this.database.tables.ledger.record({
      tenantId: this.database.issuers.rows.get(caId)!.tenantId,
      caId,
      serialNumber: serial,
      certificateId: randomUUID(),
      revokedAt: new Date('2030-01-01T00:00:00Z'),
      reasonCode,
    });
  }

  /** Another replica takes the next number just before this one stores its CRL. */
  loseNextRace(): void {
    const { issuers } = this.database;
    const take = issuers.takeNumber.bind(issuers);
    jest.spyOn(issuers, 'takeNumber').mockImplementationOnce(async (caId, crlNumber) => {
      await take(caId, crlNumber);
      return take(caId, crlNumber);
    });
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('CrlPublisher', () => {
  let pki: TestPki;
  let db: FakeRevocationDatabase;
  let blobs: MemoryBlobs;
  let relay: { nudge: jest.Mock };
  let send: jest.Mock;
  /** Signing waits for this while set (a slow issuance). */
  let gate: Deferred | undefined;
  let publisher: CrlPublisher;
  const tenant = '6f1c1f9e-2f55-4a53-9a39-0c7f3d0a9b11';
  const ca = '3c9e4f1a-7b2d-4e8f-9a1c-5d6e7f8a9b0c';

  beforeAll(async () => {
    pki = await createTestPki('Publisher Test Root');
  });

  beforeEach(() => {
    db = new FakeRevocationDatabase(pki.caDer);
    db.addIssuer(ca, tenant);
    blobs = new MemoryBlobs();
    relay = { nudge: jest.fn() };
    gate = undefined;
    send = jest.fn(async (pattern: string, command: { tenantId: string; tbsBlobRef: string }) => {
      expect(pattern).toBe(IssuancePattern.SignCrl);
      await gate?.promise;
      const tbs = await blobs.get(command.tbsBlobRef);
      if (!tbs) throw CaError.validation([{ field: 'tbsBlobRef', message: 'gone' }]);
      return { signature: Buffer.from(await signTbs(tbs, pki.caKeys.privateKey)).toString('base64') };
    });
    publisher = publisherWith();
  });

  function publisherWith(pacing?: CrlPacing): CrlPublisher {
    const { database } = db;
    const issuance = { send } as unknown as RpcClient<IssuanceApi>;
    const signing = new CrlSigning(
      database,
      issuance,
      blobs,
      relay as unknown as OutboxRelay,
      new LedgerReconciliation(database, issuance),
    );
    return new CrlPublisher(
      signing,
      database.issuers,
      new CrlEntriesCache(database.tables.ledger),
      new CrlBuildLease(database.lease),
      pacing,
    );
  }

  it('publishes the next CRL number with the ledger entries, hands the DER over and records crl.published', async () => {
    db.revoke(ca, '0A0B0C', 1);
    db.revoke(ca, '7F0102', 0);
    const before = Date.now();
    await publisher.request(ca);

    expect(db.crls).toHaveLength(1);
    const [stored] = db.crls;
    expect(stored).toMatchObject({ caId: ca, tenantId: tenant, crlNumber: '1', entryCount: 2 });
    const crl = parseCrl(new Uint8Array(stored.der));
    expect(crl.crlNumber).toBe(1n);
    expect(crl.entries.map((e) => [e.serialNumberHex, e.reasonCode])).toEqual([
      ['0A0B0C', 1],
      ['7F0102', 0],
    ]);
    expect(crl.nextUpdate.getTime() - crl.thisUpdate.getTime()).toBe(CRL_VALIDITY_MS);
    // Backdated 60 s (whole seconds), nextUpdate still a full validity after it.
    expect(crl.thisUpdate.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 60_000);
    expect(crl.thisUpdate.getTime()).toBeLessThanOrEqual(Date.now() - 60_000);
    expect(db.nextCrlNumber.get(ca)).toBe(2n);

    expect(db.outbox).toHaveLength(1);
    const { type, payload } = db.outbox[0];
    expect(type).toBe('crl.published');
    expect(payload).toMatchObject({ tenantId: tenant, caId: ca, crlNumber: '1' });
    // Signed by that CA, named to issuance (not whichever signs leaves now).
    expect(send).toHaveBeenCalledWith(
      IssuancePattern.SignCrl,
      expect.objectContaining({ tenantId: tenant, caId: ca }),
    );
    expect(payload.sha256).toBe(createHash('sha256').update(stored.der).digest('hex'));
    // The CRL stays in the blob store for the responder; the TBSCertList handed to issuance does not.
    expect([...blobs.blobs.keys()]).toEqual([payload.blobRef]);
    expect(Buffer.from(blobs.blobs.get(payload.blobRef)!)).toEqual(stored.der);
    expect(relay.nudge).toHaveBeenCalledTimes(1);
  });

  describeIfOpenssl('read by openssl', () => {
    it('verifies a fresh CRL at a clock 30 s behind (openssl verify -crl_check -attime)', async () => {
      const leaf = await pki.issueLeaf();
      await publisher.request(ca);
      const dir = mkdtempSync(join(tmpdir(), 'crl-publisher-'));
      try {
        writeFileSync(join(dir, 'ca.pem'), derToPem(pki.caDer));
        writeFileSync(join(dir, 'leaf.pem'), derToPem(leaf.der));
        writeFileSync(join(dir, 'crl.pem'), derToPem(new Uint8Array(db.crls[0].der), 'X509 CRL'));
        const behind = Math.floor(Date.now() / 1000) - 30;
        const verified = spawnOpenssl([
          'verify',
          ...['-crl_check', '-attime', String(behind)],
          ...['-CAfile', join(dir, 'ca.pem'), '-CRLfile', join(dir, 'crl.pem'), join(dir, 'leaf.pem')],
        ]);
        expect(verified.stderr).toBe('');
        expect(verified.stdout).toMatch(/: OK\n$/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('publishes a removeFromCRL (8) entry without a reason (RFC 5280 5.3.1: delta CRLs only)', async () => {
    db.revoke(ca, '0A0B0C', 8);
    await publisher.request(ca);
    expect(parseCrl(new Uint8Array(db.crls[0].der)).entries).toEqual([
      expect.objectContaining({ serialNumberHex: '0A0B0C', reasonCode: 0 }),
    ]);
  });

  it('coalesces requests made during a build into one more build that includes them all', async () => {
    gate = deferred();
    const first = publisher.request(ca);
    await new Promise((resolve) => setImmediate(resolve));
    expect(send).toHaveBeenCalledTimes(1);
    // Revocations recorded while the first CRL is being signed.
    const later: Promise<void>[] = [];
    for (let i = 1; i <= 5; i++) {
      db.revoke(ca, `0${i}`);
      later.push(publisher.request(ca));
    }
    expect(later.slice(1).every((p) => p === later[0])).toBe(true);
    const signing = gate;
    gate = undefined;
    signing.resolve();
    await Promise.all([first, ...later]);

    expect(send).toHaveBeenCalledTimes(2);
    expect(db.crls.map((c) => [c.crlNumber, c.entryCount])).toEqual([
      ['1', 0],
      ['2', 5],
    ]);
    await publisher.idle();
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('after a slow build of a large CRL, waits as long as it took before the next, which still includes every request', async () => {
    publisher = publisherWith({ pauseFactor: 1, fromEntries: 0 });
    const sentAt: number[] = [];
    const sign = send.getMockImplementation()!;
    send.mockImplementation(async (...args: unknown[]) => {
      sentAt.push(Date.now());
      return sign(...args);
    });
    gate = deferred();
    const first = publisher.request(ca);
    await new Promise((resolve) => setImmediate(resolve));
    db.revoke(ca, '01');
    const second = publisher.request(ca);
    const signing = gate;
    gate = undefined;
    setTimeout(() => signing.resolve(), 200);
    await first;
    db.revoke(ca, '02'); // while the second build waits: it is included, no third build
    expect(publisher.request(ca)).toBe(second);
    await second;

    expect(sentAt).toHaveLength(2);
    // The first build took about 200 ms, so the second began about 200 ms after it ended.
    expect(sentAt[1] - sentAt[0]).toBeGreaterThanOrEqual(380);
    expect(db.crls.map((c) => [c.crlNumber, c.entryCount])).toEqual([
      ['1', 0],
      ['2', 2],
    ]);
  });

  it('builds a small CRL again at once after a slow build', async () => {
    gate = deferred();
    const first = publisher.request(ca);
    const signing = gate;
    gate = undefined;
    setTimeout(() => signing.resolve(), 200);
    await first;
    const takeLease = jest.spyOn(db.database.lease, 'take');
    void publisher.request(ca);
    // The build starts at once: its first statement, taking the build lease, is already sent.
    expect(takeLease).toHaveBeenCalledWith(ca, expect.any(String), expect.any(Number));
    await publisher.idle();
    expect(db.crls.map((c) => c.crlNumber)).toEqual(['1', '2']);
  });

  it('builds a large CRL at once when the last build is as long ago as it took', async () => {
    publisher = publisherWith({ pauseFactor: 1, fromEntries: 0 });
    await publisher.request(ca);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const takeLease = jest.spyOn(db.database.lease, 'take');
    void publisher.request(ca);
    // The build starts at once: its first statement, taking the build lease, is already sent.
    expect(takeLease).toHaveBeenCalledWith(ca, expect.any(String), expect.any(Number));
    await publisher.idle();
    expect(send).toHaveBeenCalledTimes(2);
    expect(db.crls.map((c) => c.crlNumber)).toEqual(['1', '2']);
  });

  it('builds for different CAs of a tenant independently, each with its own numbers', async () => {
    const other = '0b4d3c2a-1e0f-4a9b-8c7d-6e5f4a3b2c1d';
    db.addIssuer(other, tenant, 41n);
    gate = deferred();
    const a = publisher.request(ca);
    const b = publisher.request(other);
    await new Promise((resolve) => setImmediate(resolve));
    expect(send).toHaveBeenCalledTimes(2);
    gate.resolve();
    await Promise.all([a, b]);
    expect(db.crls.map((c) => [c.caId, c.crlNumber]).sort()).toEqual(
      [
        [ca, '1'],
        [other, '41'],
      ].sort(),
    );
  });

  it('makes a newer CRL when another replica took the number first, discarding its own', async () => {
    db.loseNextRace();
    await publisher.request(ca);
    await publisher.idle();
    // Number 1 went to the other replica; this one published 2, and only 2.
    expect(db.crls.map((c) => c.crlNumber)).toEqual(['2']);
    expect(db.outbox.map((e) => e.payload.crlNumber)).toEqual(['2']);
    expect([...blobs.blobs.keys()]).toEqual([db.outbox[0].payload.blobRef]);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('moves past a number issuance signed for a CRL never stored here, and publishes the next at once', async () => {
    send.mockRejectedValueOnce(
      new CaError(ErrorCode.Forbidden, 'CRL number 1 is not higher', [crlNumberUsedError(4n)]),
    );
    await publisher.request(ca);
    await publisher.idle();
    expect(db.crls.map((crl) => crl.crlNumber)).toEqual(['5']);
    expect(db.nextCrlNumber.get(ca)).toBe(6n);
  });

  it('survives a failed signing: the request settles, nothing is stored, the next request builds again', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    send.mockRejectedValueOnce(new CaError(ErrorCode.ServiceUnavailable, 'issuance is down'));
    await expect(publisher.request(ca)).resolves.toBeUndefined();
    expect(db.crls).toHaveLength(0);
    expect(db.nextCrlNumber.get(ca)).toBe(1n);
    expect(relay.nudge).not.toHaveBeenCalled();
    // The TBSCertList handed over is cleaned up whatever the outcome.
    expect(blobs.blobs.size).toBe(0);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();

    await publisher.request(ca);
    expect(db.crls.map((c) => c.crlNumber)).toEqual(['1']);
  });

  it("takes the whole difference from issuance's list at once when a refusal names as many missing entries as it can", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    // Issuance recorded 700 revocations the ledger has none of (their events neither sent directly nor streamed yet).
    const recorded = Array.from({ length: 700 }, (_, i) => ({
      certificateId: randomUUID(),
      serialNumber: (0x100000 + i).toString(16).toUpperCase(),
      revokedAt: '2030-01-01T00:00:00.000Z',
      reasonCode: 5,
    }));
    const difference = (r: (typeof recorded)[number]): CrlEntryDifference => ({
      kind: 'missing',
      serialHex: r.serialNumber,
      revokedAt: new Date(r.revokedAt),
      reasonCode: r.reasonCode,
      id: r.certificateId,
    });
    const sign = send.getMockImplementation()!;
    send.mockImplementation(async (pattern: string, command: { tbsBlobRef: string }) => {
      if (pattern === IssuancePattern.CrlRevocations) return { revocations: recorded };
      // Refused while the ledger the CRL was built from lacks any (the refusal names the first 500).
      if ((db.database.tables.ledger.entries.get(ca)?.length ?? 0) < recorded.length) {
        throw new CaError(
          ErrorCode.Forbidden,
          'entries missing',
          recorded.slice(0, CRL_ENTRY_DIFFERENCES_NAMED).map(difference).map(crlEntryDifferenceError),
        );
      }
      return sign(pattern, command);
    });
    await publisher.request(ca);
    await publisher.idle();
    // One refusal, then the CRL with every entry: not one refused CRL per 500.
    expect(send.mock.calls.filter(([pattern]) => pattern === IssuancePattern.SignCrl)).toHaveLength(2);
    expect(db.crls.map((crl) => crl.entryCount)).toEqual([700]);
    warn.mockRestore();
  });

  it('does nothing for a CA that is not a CRL issuer', async () => {
    await publisher.request('00000000-0000-4000-8000-000000000000');
    expect(send).not.toHaveBeenCalled();
    expect(db.crls).toHaveLength(0);
  });
});
