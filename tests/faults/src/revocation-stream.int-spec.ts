import { TestDatabase } from '@ca/persistence/testing';
import { sleep, waitFor } from './support/child-process';
import { DistributedSystem } from './support/distributed-system';
import { startOnOwnServices, stopOwnServices } from './support/own-services';
import { OwnNatsServer } from './support/nats-server';
import { LogDir, describeWithRealServices, reportFigures } from './support/real-services';
import { FailedAnswer, FaultTenant, Issued, request } from './support/tenant-client';
import { mapPool } from '@ca/test-support';

/**
 * Distributed mode under faults: each service its own process on a fresh database of
 * DATABASE_URL's server and on a NATS server of the suite's own (the machine's shared NATS is
 * never restarted). Promises held: a revocation the API accepted always reaches the CRL (once)
 * and OCSP, across a NATS crash and across crashes of the consumers; and the public surface
 * keeps answering while the admin side is down.
 */
const REVOCATIONS = Number(process.env.FAULTS_REVOCATIONS ?? 1000);
/**
 * After the last fault, every revocation is in the CRL and answered revoked by OCSP within this
 * time of the stream's end. It covers the restarts, the 5 s JetStream ack wait of the event each
 * crash left in flight and the backlog behind it: 10 to 17 s measured at load average 8 to 12
 * (the former 30 s ack wait made it 28 s and more), see docs/reliability.md.
 */
const CAUGHT_UP_WITHIN_MS = 25_000;

describeWithRealServices('revocation stream faults')(
  'distributed mode: revocation stream under faults',
  () => {
    const logs = new LogDir(2);
    let database: TestDatabase;
    let nats: OwnNatsServer;
    let system: DistributedSystem;

    beforeAll(async () => {
      ({ database, nats, system } = await startOnOwnServices(logs));
    }, 120_000);

    afterAll(() => stopOwnServices(logs, { database, nats, system }), 60_000);

    /**
     * Revokes every certificate, 8 at a time, firing each fault once `at` revocations have been
     * answered (the stream goes on meanwhile); then waits until CRL and OCSP show every one.
     */
    async function revocationStream(
      tenant: FaultTenant,
      certificates: Issued[],
      faults: { at: number; fault: () => Promise<void> }[],
    ) {
      const started = Date.now();
      const failures: FailedAnswer[] = [];
      const firing: Promise<void>[] = [];
      let answered = 0;
      await mapPool(certificates, 8, async (certificate) => {
        failures.push(...(await tenant.revokeWithRetry(certificate.certificateId)));
        answered++;
        for (const f of faults) if (answered === f.at) firing.push(f.fault());
      });
      await Promise.all(firing);
      const streamMs = Date.now() - started;

      const serials = certificates.map((c) => c.serialNumber);
      const wanted = new Set(serials);
      let lastCrlSize = 0;
      await waitFor(
        async () => {
          const crl = await tenant.crl();
          lastCrlSize = crl?.entries.length ?? 0;
          return (
            crl !== undefined &&
            crl.entries.filter((e) => wanted.has(e.serialNumberHex)).length === wanted.size
          );
        },
        90_000,
        `every revoked serial in the CRL (last CRL had ${lastCrlSize})`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; last CRL had ${lastCrlSize} of ${wanted.size}`);
      });
      const crl = (await tenant.crl())!;
      const crlMs = Date.now() - started - streamMs;
      const inCrl = crl.entries.map((e) => e.serialNumberHex);
      expect(new Set(inCrl).size).toBe(inCrl.length); // nothing twice
      expect(inCrl.length).toBe(serials.length); // nothing else
      expect(crl.entries.every((e) => e.reasonCode === 1)).toBe(true); // keyCompromise

      let notRevoked = serials;
      await waitFor(
        async () => {
          notRevoked = await tenant.ocspMismatches(notRevoked, 'revoked');
          return notRevoked.length === 0;
        },
        30_000,
        'every revoked serial answered revoked by OCSP',
      ).catch(() => undefined);
      expect(notRevoked).toEqual([]);
      return {
        revocations: serials.length,
        streamMs,
        crlCaughtUpMs: crlMs,
        ocspCheckedMs: Date.now() - started - streamMs - crlMs,
        crlNumber: Number(crl.crlNumber),
        failedAnswers: failures.length,
        failedStatuses: [...new Set(failures.map((f) => `${f.status} ${f.code ?? ''}`.trim()))],
      };
    }

    // One stream carries all three faults, each while revocations keep coming: the issue's 1,000
    // revocations fit the suite's time budget once, not three times (see docs/reliability.md).
    it(`NATS crashed, then the revocation service and the OCSP responder SIGKILLed, each restarted, during one stream of ${REVOCATIONS} revocations: every one in the CRL once and revoked in OCSP`, async () => {
      const tenant = await FaultTenant.create(system);
      const certificates = await tenant.issueMany(REVOCATIONS);
      const restart = (service: 'revocation' | 'ocsp-responder') => async () => {
        await system.kill(service);
        await sleep(1_000);
        await system.startService(service);
      };
      const figures = await revocationStream(tenant, certificates, [
        {
          at: Math.floor(REVOCATIONS * 0.15),
          fault: async () => {
            await nats.kill();
            await sleep(2_000);
            await nats.up();
          },
        },
        { at: Math.floor(REVOCATIONS * 0.4), fault: restart('revocation') },
        { at: Math.floor(REVOCATIONS * 0.65), fault: restart('ocsp-responder') },
      ]);
      reportFigures('revocation-stream', figures);
      expect(figures.crlCaughtUpMs + figures.ocspCheckedMs).toBeLessThan(CAUGHT_UP_WITHIN_MS);
      logs.testPassed();
    }, 300_000);

    it('gateway and issuance stopped: CA certificate, CRL and OCSP keep answering correctly', async () => {
      const tenant = await FaultTenant.create(system);
      const certificates = await tenant.issueMany(20);
      const revoked = certificates.slice(0, 10).map((c) => c.serialNumber);
      const good = certificates.slice(10).map((c) => c.serialNumber);
      await mapPool(certificates.slice(0, 10), 4, (c) => tenant.revokeWithRetry(c.certificateId));
      await waitFor(
        async () => (await tenant.crl())?.entries.length === 10,
        30_000,
        'the CRL with 10 entries',
      );
      await waitFor(
        async () => (await tenant.ocspMismatches(revoked, 'revoked')).length === 0,
        30_000,
        'OCSP revoked',
      );

      await Promise.all([system.stopService('gateway'), system.stopService('issuance')]);
      expect((await tenant.admin('GET', '/v1/certificates')).status).toBe(0); // the admin API is gone

      const caPem = await request(`${system.pkiUrl}/v1/tenants/${tenant.tenantId}/ca.pem`);
      expect(caPem.status).toBe(200);
      const crl = (await tenant.crl())!;
      expect(crl.entries.map((e) => e.serialNumberHex).sort()).toEqual([...revoked].sort());
      expect(crl.nextUpdate.getTime()).toBeGreaterThan(Date.now());
      // Never asked before: these answers are signed now, by the responder's own key.
      expect(await tenant.ocspMismatches(good, 'good')).toEqual([]);
      expect(await tenant.ocspMismatches(revoked, 'revoked')).toEqual([]);
      logs.testPassed();
    }, 120_000);
  },
);
