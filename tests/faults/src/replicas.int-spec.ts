import { TestDatabase } from '@ca/persistence/testing';
import { connect } from 'nats';
import { Client } from 'pg';
import { sleep, waitFor } from './support/child-process';
import { DistributedSystem } from './support/distributed-system';
import { startOnOwnServices, stopOwnServices } from './support/own-services';
import { OwnNatsServer } from './support/nats-server';
import { LogDir, describeWithRealServices, reportFigures } from './support/real-services';
import { FaultTenant, inPool } from './support/tenant-client';

const ISSUED = 200;
const REVOKED = 120;

/**
 * Two replicas of issuance and of revocation on one database and one NATS, one replica of each
 * SIGKILLed in the middle of a revocation stream: the outbox relays share the outboxes (claims),
 * the revocation replicas share the CRL builds (lease), and the system still ends with every
 * revocation in the CRL once and every event in the stream once.
 */
describeWithRealServices('replicas')('distributed mode: two replicas of issuance and revocation', () => {
  const logs = new LogDir(1);
  let database: TestDatabase;
  let nats: OwnNatsServer;
  let system: DistributedSystem;

  beforeAll(async () => {
    ({ database, nats, system } = await startOnOwnServices(logs, {
      secondReplicas: ['issuance', 'revocation'],
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

  it('every revocation reaches the CRL once and OCSP, every event is in the stream once, with a replica of each killed midway', async () => {
    const started = Date.now();
    const tenant = await FaultTenant.create(system);
    const certificates = await tenant.issueMany(ISSUED);
    const revoked = certificates.slice(0, REVOKED);
    let answered = 0;
    let killing: Promise<unknown> | undefined;
    await inPool(revoked, 8, async (certificate) => {
      await tenant.revokeWithRetry(certificate.certificateId);
      if (++answered === REVOKED / 2)
        killing = Promise.all([system.kill('issuance-2'), system.kill('revocation-2')]);
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
    const inCrl = (await tenant.crl())!.entries.map((e) => e.serialNumberHex);
    expect(new Set(inCrl).size).toBe(inCrl.length);
    expect(inCrl.length).toBe(REVOKED);
    let notRevoked = [...wanted];
    await waitFor(
      async () => (notRevoked = await tenant.ocspMismatches(notRevoked, 'revoked')).length === 0,
      60_000,
      'every revoked serial answered revoked by OCSP',
    ).catch(() => undefined);
    expect(notRevoked).toEqual([]);

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
      events: Number(outbox[0].rows),
      newestCrlNumber: Number(crlNumbers[0].n),
      totalMs: Date.now() - started,
    });
    logs.testPassed();
  }, 300_000);
});
