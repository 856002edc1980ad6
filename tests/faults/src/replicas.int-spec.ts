import { TestDatabase } from '@ca/persistence/testing';
import { connect } from 'nats';
import { Client } from 'pg';
import { sleep, waitFor } from './support/child-process';
import { DistributedSystem } from './support/distributed-system';
import { startOnOwnServices, stopOwnServices } from './support/own-services';
import { OwnNatsServer } from './support/nats-server';
import { LogDir, describeWithRealServices, reportFigures } from './support/real-services';
import { FaultTenant } from './support/tenant-client';
import { mapPool } from '@ca/test-support';

const ISSUED = 200;
const REVOKED = 120;

/**
 * Two replicas of every service (gateway, issuance, revocation, responder) on one database and one
 * NATS, one replica of each SIGKILLed in the middle of a revocation stream sent through both
 * gateways in turn: the outbox relays share the outboxes (claims), the revocation replicas share the
 * CRL builds (lease), a client alternating between the responders never sees the CRL number go
 * down, and the system still ends with every revocation in the CRL once, answered revoked by both
 * responders (the killed one once restarted), and every event in the stream once.
 */
describeWithRealServices('replicas')('distributed mode: two replicas of every service', () => {
  const logs = new LogDir(1);
  let database: TestDatabase;
  let nats: OwnNatsServer;
  let system: DistributedSystem;

  beforeAll(async () => {
    ({ database, nats, system } = await startOnOwnServices(logs, {
      secondReplicas: ['issuance', 'revocation', 'ocsp-responder', 'gateway'],
    }));
  }, 180_000);

  afterAll(() => stopOwnServices(logs, { database, nats, system }), 60_000);

  async function query<T>(sql: string): Promise<T[]> {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /**
   * Polls the CRL of the two responders in turn until stopped, as a relying party behind a
   * round-robin load balancer: the CRL numbers it was served, in order (a replica that is down
   * is skipped, as the load balancer would).
   */
  function alternatingCrlPoller(tenant: FaultTenant) {
    const seen: number[] = [];
    let stopped = false;
    const done = (async () => {
      for (let i = 0; !stopped; i++) {
        const crl = await tenant.crl(system.pkiUrls[i % 2]).catch(() => undefined);
        if (crl) seen.push(Number(crl.crlNumber));
        await sleep(50);
      }
    })();
    return {
      seen,
      stop: async () => {
        stopped = true;
        await done;
      },
    };
  }

  it('every revocation reaches the CRL once and OCSP on both responders, every event is in the stream once, CRL numbers never go down, with a replica of each service killed midway', async () => {
    const started = Date.now();
    const tenant = await FaultTenant.create(system);
    const certificates = await tenant.issueMany(ISSUED);
    const revoked = certificates.slice(0, REVOKED);
    const poller = alternatingCrlPoller(tenant);
    let answered = 0;
    let killing: Promise<unknown> | undefined;
    const failures = await mapPool(revoked, 8, async (certificate) => {
      const failed = await tenant.revokeWithRetry(certificate.certificateId);
      if (++answered === REVOKED / 2)
        killing = Promise.all(
          (['issuance-2', 'revocation-2', 'ocsp-responder-2', 'gateway-2'] as const).map((replica) =>
            system.kill(replica),
          ),
        );
      return failed;
    });
    await killing;

    const wanted = new Set(revoked.map((c) => c.serialNumber));
    await waitFor(
      async () => {
        const crl = await tenant.crl();
        return (
          crl !== undefined && crl.entries.filter((e) => wanted.has(e.serialNumberHex)).length === wanted.size
        );
      },
      90_000,
      'every revoked serial in the CRL',
    );
    await poller.stop();
    const inCrl = (await tenant.crl())!.entries.map((e) => e.serialNumberHex);
    expect(new Set(inCrl).size).toBe(inCrl.length);
    expect(inCrl.length).toBe(REVOKED);
    expect(poller.seen.length).toBeGreaterThan(10);
    const wentDown = poller.seen.filter((n, i) => i > 0 && n < poller.seen[i - 1]);
    expect(wentDown).toEqual([]);
    let notRevoked = [...wanted];
    await waitFor(
      async () => (notRevoked = await tenant.ocspMismatches(notRevoked, 'revoked')).length === 0,
      60_000,
      'every revoked serial answered revoked by OCSP',
    ).catch(() => undefined);
    expect(notRevoked).toEqual([]);

    // The killed responder, started again, answers from the shared store: nothing it missed is lost.
    await system.startService('ocsp-responder-2');
    notRevoked = [...wanted];
    await waitFor(
      async () =>
        (notRevoked = await tenant.ocspMismatches(notRevoked, 'revoked', 8, system.pkiUrls[1])).length === 0,
      60_000,
      'the restarted responder answers every revoked serial revoked',
    ).catch(() => undefined);
    expect(notRevoked).toEqual([]);
    const restartedCrl = await tenant.crl(system.pkiUrls[1]);
    expect(Number(restartedCrl?.crlNumber)).toBeGreaterThanOrEqual(Math.max(...poller.seen));

    // Every outbox row published (the gateway's tenant.updated included), and the stream holds
    // each event once.
    let outbox: { rows: string; unpublished: string }[] = [];
    await waitFor(
      async () => {
        outbox = await query<{ rows: string; unpublished: string }>(
          `SELECT count(*) AS rows, count(*) FILTER (WHERE published_at IS NULL) AS unpublished
               FROM (SELECT published_at FROM issuance.outbox UNION ALL SELECT published_at FROM revocation.outbox
                     UNION ALL SELECT published_at FROM gateway.outbox) o`,
        );
        return outbox[0].unpublished === '0';
      },
      60_000,
      'every outbox published',
    );
    await sleep(1_000);
    const nc = await connect({ servers: nats.url });
    try {
      const stream = await (await nc.jetstreamManager()).streams.info('CA_EVENTS');
      expect(stream.state.messages).toBe(Number(outbox[0].rows));
    } finally {
      await nc.close();
    }
    const crlNumbers = await query<{ n: string }>('SELECT max(crl_number) AS n FROM revocation.crls');
    reportFigures('replicas', {
      issued: ISSUED,
      revoked: REVOKED,
      failedRevokeAnswers: failures.flat().length,
      crlPolls: poller.seen.length,
      events: Number(outbox[0].rows),
      newestCrlNumber: Number(crlNumbers[0].n),
      totalMs: Date.now() - started,
    });
    logs.testPassed();
  }, 300_000);
});
