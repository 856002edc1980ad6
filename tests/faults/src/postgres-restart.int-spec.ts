import { Client } from 'pg';
import { mapPool } from '@ca/test-support';
import { sleep, waitFor } from './support/child-process';
import { DistributedSystem } from './support/distributed-system';
import { OwnNatsServer } from './support/nats-server';
import { OwnPostgresCluster, postgresServerInstalled } from './support/postgres-cluster';
import { LogDir, describeWithRealServices, reportFigures } from './support/real-services';
import { Answer, FaultTenant, describeFailure, isClearServerError, request } from './support/tenant-client';

/**
 * Postgres crashed under issuance load: the services run as their own processes on a
 * throwaway PostgreSQL cluster and NATS server of this suite (the machine's shared Postgres is
 * never restarted). Promise held: every issue request either succeeded, and then its certificate
 * exists, is listed and is good in OCSP, or got a clear 5xx Problem Details; no certificate
 * exists that was not returned, and none was returned that does not exist.
 */
const REQUESTS = Number(process.env.FAULTS_ISSUE_REQUESTS ?? 400);

const describeFaults = describeWithRealServices('postgres restart fault');
(postgresServerInstalled() ? describeFaults : describe.skip)(
  'distributed mode: Postgres crashed under issuance load',
  () => {
    if (!postgresServerInstalled())
      process.stderr.write('postgres restart fault: no PostgreSQL server binaries, skipped\n');
    const logs = new LogDir(1);
    let cluster: OwnPostgresCluster;
    let nats: OwnNatsServer;
    let system: DistributedSystem;
    let databaseUrl: string;

    beforeAll(async () => {
      cluster = await OwnPostgresCluster.start();
      nats = await OwnNatsServer.start(logs.path);
      databaseUrl = await cluster.createDatabase('ca_faults');
      system = await DistributedSystem.start({ databaseUrl, natsUrl: nats.url }, logs.path);
    }, 120_000);

    afterAll(async () => {
      await system?.stop();
      await nats?.remove();
      await cluster?.remove();
      logs.close();
    }, 60_000);

    it(`${REQUESTS} issue requests, Postgres crashed (immediate stop) and restarted after a third: every answer is a certificate that exists or a clear 5xx`, async () => {
      const tenant = await FaultTenant.create(system);
      let answered = 0;
      let crash: Promise<void> | undefined;
      let downMs = 0;
      const started = Date.now();
      const answers: Answer[] = await mapPool(
        Array.from({ length: REQUESTS }, (_, i) => i),
        8,
        async (i) => {
          const answer = await tenant.issueOnce(i);
          // A client backs off a moment after a failure rather than spinning through the outage.
          if (answer.status !== 200) await sleep(250);
          if (++answered === Math.floor(REQUESTS / 3))
            crash = (async () => {
              const down = Date.now();
              await cluster.crash();
              await sleep(2_000);
              await cluster.up();
              downMs = Date.now() - down;
            })();
          return answer;
        },
      );
      await crash;
      const loadMs = Date.now() - started;

      const succeeded = answers
        .filter((a) => a.status === 200)
        .map((a) => JSON.parse(a.body) as { certificateId: string; serialNumber: string });
      const failed = answers.filter((a) => a.status !== 200);
      expect(
        failed.filter((a) => !isClearServerError(a)).map((a) => `${a.status} ${a.body.slice(0, 200)}`),
      ).toEqual([]);
      expect(failed.length).toBeGreaterThan(0); // the crash did hit requests: the test is not vacuous

      // The system takes requests again once Postgres is back.
      await waitFor(
        async () => (await request(`${system.gatewayUrl}/health/ready`)).status === 200,
        30_000,
        'gateway ready',
      );
      let list: Answer | undefined;
      await waitFor(
        async () => (list = await tenant.admin('GET', '/v1/certificates')).status === 200,
        30_000,
        'list answering',
      );
      const listed = JSON.parse(list!.body) as { certificates: { certificateId: string }[] };
      const returnedIds = succeeded.map((c) => c.certificateId).sort();
      expect(listed.certificates.map((c) => c.certificateId).sort()).toEqual(returnedIds);

      // What the issuance schema holds, read directly: nothing more, nothing less than what was returned.
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      const rows = await client
        .query<{ id: string }>('SELECT id FROM issuance.certificates WHERE tenant_id = $1', [tenant.tenantId])
        .finally(() => client.end());
      expect(rows.rows.map((r) => r.id).sort()).toEqual(returnedIds);

      // Every returned certificate reaches the responder's projection (outbox relayed after the crash).
      let notGood = succeeded.map((c) => c.serialNumber);
      await waitFor(
        async () => {
          notGood = await tenant.ocspMismatches(notGood, 'good');
          return notGood.length === 0;
        },
        60_000,
        'every issued certificate good in OCSP',
      ).catch(() => undefined);
      expect(notGood).toEqual([]);

      // And issuing works again.
      expect((await tenant.issueOnce(REQUESTS)).status).toBe(200);
      reportFigures('postgres-restart', {
        requests: REQUESTS,
        succeeded: succeeded.length,
        failed: failed.length,
        failedStatuses: [
          ...new Set(
            failed.map((a) => {
              const f = describeFailure(a);
              return `${f.status} ${f.code ?? ''}`.trim();
            }),
          ),
        ],
        loadMs,
        postgresDownMs: downMs,
      });
      logs.testPassed();
    }, 240_000);
  },
);
