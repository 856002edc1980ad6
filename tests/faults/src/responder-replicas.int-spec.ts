import { TestDatabase } from '@ca/persistence/testing';
import { waitFor } from './support/child-process';
import { OwnNatsServer } from './support/nats-server';
import { DistributedSystem } from './support/distributed-system';
import { startOnOwnServices, stopOwnServices } from './support/own-services';
import { LogDir, describeWithRealServices, reportFigures } from './support/real-services';
import { FaultTenant } from './support/tenant-client';
import { mapPool } from '@ca/test-support';

const ISSUED = 60;

/**
 * Two responders on one database, a relying party alternating between them (as behind a
 * round-robin load balancer) while revocations stream in: the CRL number it sees never goes
 * down, and a serial it once saw `revoked` is never answered `good` again, by either replica
 * (docs/architecture.md#replica-consistency).
 */
describeWithRealServices('responder replicas')('distributed mode: two responders answer consistently', () => {
  const logs = new LogDir(1);
  let database: TestDatabase;
  let nats: OwnNatsServer;
  let system: DistributedSystem;

  beforeAll(async () => {
    ({ database, nats, system } = await startOnOwnServices(logs, {
      secondReplicas: ['ocsp-responder'],
    }));
  }, 180_000);

  afterAll(() => stopOwnServices(logs, { database, nats, system }), 60_000);

  it('never serves an older CRL nor good after revoked to a client alternating replicas', async () => {
    expect(system.pkiUrls).toHaveLength(2);
    const tenant = await FaultTenant.create(system);
    const certificates = await tenant.issueMany(ISSUED);
    const serials = certificates.map((c) => c.serialNumber);
    // Both replicas remember every serial as good: the stale answer a change must displace.
    for (const pkiUrl of system.pkiUrls) {
      await waitFor(
        async () =>
          (await mapPool(serials, 8, (s) => tenant.ocspStatus(s, pkiUrl))).every((s) => s.kind === 'good'),
        30_000,
        `every serial good on ${pkiUrl}`,
      );
    }

    let revoking = true;
    const revocations = mapPool(certificates, 2, (c) => tenant.revokeWithRetry(c.certificateId)).finally(
      () => (revoking = false),
    );
    let polls = 0;
    let highestCrl = -1n;
    const crlWentBack: string[] = [];
    const seenRevoked = new Set<string>();
    const goodAfterRevoked: string[] = [];
    // One client, one request at a time, alternating replicas; a few rounds after the last revocation.
    let roundsAfter = 0;
    while (revoking || roundsAfter++ < 40) {
      const pkiUrl = system.pkiUrls[polls % 2];
      const serial = serials[polls % serials.length];
      polls++;
      const crl = await tenant.crl(pkiUrl);
      if (crl) {
        if (crl.crlNumber < highestCrl) crlWentBack.push(`${pkiUrl}: ${crl.crlNumber} after ${highestCrl}`);
        if (crl.crlNumber > highestCrl) highestCrl = crl.crlNumber;
      }
      const status = await tenant.ocspStatus(serial, pkiUrl);
      if (status.kind === 'revoked') seenRevoked.add(serial);
      else if (seenRevoked.has(serial)) goodAfterRevoked.push(`${pkiUrl}: ${serial}`);
    }
    await revocations;

    expect(crlWentBack).toEqual([]);
    expect(goodAfterRevoked).toEqual([]);
    // The stream was actually observed while it changed things.
    expect(seenRevoked.size).toBeGreaterThan(ISSUED / 2);
    expect(highestCrl).toBeGreaterThan(1n);
    reportFigures('responder replicas', {
      polls,
      highestCrl: Number(highestCrl),
      seenRevoked: seenRevoked.size,
    });
    logs.testPassed();
  }, 300_000);
});
