import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { TestDatabase } from '@ca/persistence/testing';
import { Client } from 'pg';
import { waitFor } from './support/child-process';
import { DistributedSystem } from './support/distributed-system';
import { startOnOwnServices, stopOwnServices } from './support/own-services';
import { OwnNatsServer } from './support/nats-server';
import { LogDir, describeWithRealServices, reportFigures } from './support/real-services';
import { FaultTenant } from './support/tenant-client';

interface Arrival {
  id: string;
  at: number;
  body: string;
}

/**
 * Two webhooks replicas as processes on one database and NATS; the receiver holds the first
 * delivery of an event open, the replica sending it is SIGKILLed mid-request, and the other
 * replica delivers the event once the dead one's claim lapses: at least once, with the same
 * webhook-id (docs/api.md#webhooks), so a receiver that de-duplicates on it sees it once.
 */
describeWithRealServices('webhook replicas')(
  'distributed mode: a webhooks replica killed mid-delivery',
  () => {
    const logs = new LogDir(1);
    let database: TestDatabase;
    let nats: OwnNatsServer;
    let system: DistributedSystem;
    const arrivals: Arrival[] = [];
    const held: ServerResponse[] = [];
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        const first = !arrivals.some((a) => a.id === id);
        arrivals.push({ id, at: Date.now(), body: Buffer.concat(chunks).toString('utf8') });
        // The first attempt of each event gets no answer: its sender is killed while it waits.
        if (first) held.push(res);
        else res.writeHead(204).end();
      });
    });

    beforeAll(async () => {
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      ({ database, nats, system } = await startOnOwnServices(logs, {
        webhooks: { WEBHOOK_RETRY_BASE_SECONDS: '1' },
        secondReplicas: ['webhooks'],
        // Seven processes start at once: on a loaded machine that takes more than the default.
        startTimeoutMs: 240_000,
      }));
    }, 300_000);

    afterAll(async () => {
      for (const res of held) res.destroy();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
      await stopOwnServices(logs, { database, nats, system });
    }, 60_000);

    async function query<T>(sql: string, params: unknown[]): Promise<T[]> {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    }

    it('the event still arrives, with the same webhook-id, from the replica left', async () => {
      const tenant = await FaultTenant.create(system);
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const subscribed = await tenant.admin('POST', '/v2/webhooks', { url, events: ['certificate.issued'] });
      expect(subscribed.status).toBe(201);
      const { webhookId } = JSON.parse(subscribed.body) as { webhookId: string };
      const issued = await tenant.issueOnce(1);
      expect(issued.status).toBe(200);
      const { certificateId } = JSON.parse(issued.body) as { certificateId: string };

      await waitFor(async () => arrivals.length > 0, 30_000, 'the first delivery attempt');
      const [first] = arrivals;
      expect(JSON.parse(first.body)).toMatchObject({ type: 'certificate.issued', data: { certificateId } });
      // The replica that claimed the message (its claim names its pid) is the one sending it.
      const [claim] = await query<{ claimed_by: string | null; status: string }>(
        'SELECT claimed_by, status FROM webhooks.messages WHERE id = $1',
        [first.id],
      );
      expect(claim.status).toBe('pending');
      const pid = Number(claim.claimed_by?.split('-')[0]);
      const sender = (['webhooks', 'webhooks-2'] as const).find((name) => system.pid(name) === pid);
      expect(sender).toBeDefined();
      await system.kill(sender!);
      const killedAt = Date.now();

      await waitFor(async () => arrivals.length > 1, 90_000, 'the delivery by the other replica');
      const again = arrivals[1];
      expect(again.id).toBe(first.id);
      expect(again.body).toBe(first.body);
      let delivered: { status: string }[] = [];
      await waitFor(
        async () =>
          (delivered = await query<{ status: string }>('SELECT status FROM webhooks.messages WHERE id = $1', [
            first.id,
          ]))[0]?.status === 'delivered',
        10_000,
        'the message recorded delivered',
      ).catch(() => undefined);
      expect(delivered).toEqual([{ status: 'delivered' }]);
      // Its log: the one attempt the replica left made, answered.
      const log = await tenant.admin('GET', `/v2/webhooks/${webhookId}/deliveries`);
      expect(JSON.parse(log.body)).toEqual({
        deliveries: [expect.objectContaining({ eventId: first.id, attempt: 1, statusCode: 204 })],
      });
      expect(arrivals).toHaveLength(2);
      reportFigures('webhook-replicas', { redeliveredAfterKillMs: again.at - killedAt });
      logs.testPassed();
    }, 240_000);
  },
);
