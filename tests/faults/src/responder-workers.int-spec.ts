import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { TestDatabase } from '@ca/persistence/testing';
import { OcspCertStatus, buildCertId, parseOcspResponse } from '@ca/pki';
import { mapPool } from '@ca/test-support';
import { childPids, processExists, waitFor } from './support/child-process';
import { DistributedSystem } from './support/distributed-system';
import { OwnNatsServer } from './support/nats-server';
import { startOnOwnServices, stopOwnServices } from './support/own-services';
import { LogDir, describeWithRealServices, reportFigures } from './support/real-services';
import { FaultTenant, Issued } from './support/tenant-client';

/** Asks of one serial on fresh connections: the primary hands them to the workers in turn. */
const ASKS = 12;

/**
 * The responder as `OCSP_RESPONDER_WORKERS=2 nx serve ocsp-responder` runs it: a primary and two
 * workers behind one public port (docs/operations.md#scaling-the-responder). Each worker is a
 * replica: a revocation reaches the answers of both, a worker killed with SIGKILL leaves the other
 * answering and comes back, and SIGTERM to the primary stops everything with exit status 0.
 */
describeWithRealServices('responder workers')('distributed mode: the responder on two workers', () => {
  const logs = new LogDir(3);
  let database: TestDatabase;
  let nats: OwnNatsServer;
  let system: DistributedSystem;
  let tenant: FaultTenant;
  let certificates: Issued[];

  beforeAll(async () => {
    ({ database, nats, system } = await startOnOwnServices(logs, { responderWorkers: 2 }));
    tenant = await FaultTenant.create(system);
    certificates = await tenant.issueMany(8);
  }, 240_000);

  afterAll(() => stopOwnServices(logs, { database, nats, system }), 60_000);

  const primary = () => system.pid('ocsp-responder')!;
  const workers = () => childPids(primary());
  const responderLog = () => readFileSync(join(system.logDir, 'ocsp-responder.log'), 'utf8');

  /** The status of `serial` asked `times` times, each over a connection of its own. */
  const statusesOnFreshConnections = (serial: string, times = ASKS) =>
    mapPool(
      Array.from({ length: times }, () => serial),
      4,
      (s) =>
        ocspOnFreshConnection(system.pkiUrl, tenant, s).then(
          (status) => status.kind as string,
          (error: Error) => `failed: ${error.message}`,
        ),
    );

  it('answers from both workers: a revocation reaches every answer on fresh connections', async () => {
    expect(workers()).toHaveLength(2);
    const serials = certificates.map((c) => c.serialNumber);
    // Both workers remember every serial as good (each is asked about every serial several times).
    for (const serial of serials)
      await waitFor(
        async () => (await statusesOnFreshConnections(serial)).every((kind) => kind === 'good'),
        30_000,
        `${serial} good on every connection`,
      );

    const revoked = certificates.slice(0, 4);
    for (const c of revoked) await tenant.revokeWithRetry(c.certificateId);
    const goodAfterRevoked: string[] = [];
    for (const { serialNumber } of revoked) {
      // Once one answer says revoked, every later one must, whichever worker answers it.
      await waitFor(
        async () => (await ocspOnFreshConnection(system.pkiUrl, tenant, serialNumber)).kind === 'revoked',
        30_000,
        `${serialNumber} revoked`,
      );
      const kinds = await statusesOnFreshConnections(serialNumber, ASKS * 2);
      goodAfterRevoked.push(
        ...kinds.filter((kind) => kind !== 'revoked').map((k) => `${serialNumber}: ${k}`),
      );
    }
    expect(goodAfterRevoked).toEqual([]);
    for (const { serialNumber } of certificates.slice(4))
      expect(new Set(await statusesOnFreshConnections(serialNumber))).toEqual(new Set(['good']));
    logs.testPassed();
  }, 180_000);

  it('keeps answering while a worker killed with SIGKILL is away, and the worker comes back', async () => {
    const serial = certificates[6].serialNumber;
    const [first, second] = workers();
    const restartsBefore = (responderLog().match(/started again/g) ?? []).length;

    // Each original worker killed in turn: while one is away, the other answers every request;
    // the second kill leaves only the restarted first one, so it answers too.
    let answeredAlone = 0;
    for (const [i, victim] of [first, second].entries()) {
      process.kill(victim, 'SIGKILL');
      // Gone, and the primary knows it (it logged the exit): it hands it no more connections.
      await waitFor(
        async () => !processExists(victim) && (responderLog().match(/exited on SIGKILL/g) ?? []).length > i,
        10_000,
        `worker ${victim} gone`,
      );
      const kinds = await statusesOnFreshConnections(serial, ASKS * 2);
      expect(kinds.filter((kind) => kind !== 'good')).toEqual([]);
      answeredAlone += kinds.length;
      // Back: a new process in its place that has started (its surface listens, its consumers run).
      await waitFor(
        async () =>
          workers().length === 2 &&
          (responderLog().match(/started again/g) ?? []).length > restartsBefore + i,
        60_000,
        `a worker in place of ${victim}`,
      );
    }
    const now = workers();
    expect(now).toHaveLength(2);
    expect(now).not.toContain(first);
    expect(now).not.toContain(second);
    // The restarted workers answer revocations as before.
    expect(new Set(await statusesOnFreshConnections(certificates[0].serialNumber))).toEqual(
      new Set(['revoked']),
    );
    reportFigures('responder workers', { answeredWithOneWorker: answeredAlone, restarted: 2 });
    logs.testPassed();
  }, 180_000);

  it('stops every worker on SIGTERM to the primary and exits 0, leaving no process', async () => {
    const pids = workers();
    expect(pids).toHaveLength(2);
    const exit = await system.stopService('ocsp-responder');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(pids.filter(processExists)).toEqual([]);
    logs.testPassed();
  }, 60_000);
});

/** One OCSP POST (RFC 6960 A.1) over a connection of its own, closed after the answer. */
function ocspOnFreshConnection(pkiUrl: string, tenant: FaultTenant, serial: string): Promise<OcspCertStatus> {
  const certId = buildCertId({
    issuerCertificateDer: tenant.caDer,
    serialNumberHex: serial,
    hashAlgorithm: 'sha1',
  });
  const body = sequence(sequence(sequence(sequence(Buffer.from(certId.der)))));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/ocsp-request', connection: 'close' },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
          try {
            const parsed = parseOcspResponse(new Uint8Array(Buffer.concat(chunks)));
            if (parsed.responseStatus !== 'successful')
              return reject(new Error(`responseStatus ${parsed.responseStatus}`));
            const single = parsed.responses.find((r) => r.serialNumberHex === serial);
            if (!single) return reject(new Error(`no SingleResponse for ${serial}`));
            resolve(single.status);
          } catch (error) {
            reject(error as Error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A DER SEQUENCE around `content` (X.690 8.1.3 length octets). */
function sequence(content: Buffer): Buffer {
  const octets: number[] = [];
  for (let n = content.length; n > 0; n >>= 8) octets.unshift(n & 0xff);
  const header = content.length < 0x80 ? [content.length] : [0x80 | octets.length, ...octets];
  return Buffer.concat([Buffer.of(0x30, ...header), content]);
}
