/**
 * Webhook delivery: the delay from an issuance's answer to its `certificate.issued` webhook
 * arriving at a local receiver (p50/p99), and deliveries/s to one subscription and to eight while
 * certificates are issued as fast as 8 clients can.
 *
 * Embedded without DATABASE_URL; with DATABASE_URL a throwaway Postgres database (and NATS_URL's
 * NATS when set). The receiver answers 204 at once; WEBHOOK_ALLOW_PRIVATE_TARGETS=true lets the
 * system deliver to it on loopback.
 *
 *   node -r @swc-node/register bench/webhooks.ts [--issues 200] [--interval-ms 50] [--backlog 400]
 *     [--quick] [--no-record]
 */
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { mapPool } from '@ca/test-support';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import { Api, ISSUE_BODY, adminApi, initializeCa, startSystem } from './lib/system';
import { int, ms, percentile } from './lib/stats';

const USAGE = `bench/webhooks.ts: issuance answer → webhook arrival (p50/p99), deliveries/s.
  --issues N        certificates timed one by one (default 200; --quick: 20)
  --interval-ms N   one issuance started every N ms (default 50)
  --backlog N       issuances for the throughput runs (default 400; --quick: 40)
  --quick           smaller
  --no-record       do not append to bench/history`;

const TIMEOUT_MS = 120_000;

/** The receiver: when each certificate's event arrived; `hold` keeps answers back until released. */
class Receiver {
  readonly arrivals = new Map<string, number>();
  /** Per certificate: arrival (wall clock) minus the event's `timestamp` (when issuance recorded it). */
  readonly sinceRecorded = new Map<string, number>();
  count = 0;
  private constructor(
    readonly url: string,
    private readonly close: () => Promise<void>,
  ) {}

  static async start(): Promise<Receiver> {
    const self: { receiver?: Receiver } = {};
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          timestamp: string;
          data: { certificateId?: string };
        };
        const r = self.receiver!;
        r.count++;
        if (body.data.certificateId && !r.arrivals.has(body.data.certificateId)) {
          r.arrivals.set(body.data.certificateId, at);
          r.sinceRecorded.set(body.data.certificateId, Date.now() - Date.parse(body.timestamp));
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self.receiver = new Receiver(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    return self.receiver;
  }

  stop(): Promise<void> {
    return this.close();
  }
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function subscribe(api: Api, url: string): Promise<void> {
  const answer = await api.call('POST', '/v2/webhooks', { url, events: ['certificate.issued'] });
  if (answer.status !== 201) throw new Error(`subscribe: ${answer.status} ${JSON.stringify(answer.json)}`);
}

/** One issuance; a 503 (the distribution side did not confirm in time, on a loaded machine) is retried. */
async function issue(api: Api, i: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const answer = await api.call('POST', '/v1/certificates', { ...ISSUE_BODY, clientId: `hook-${i}` });
    if (answer.status === 200) return answer.json.certificateId as string;
    if (answer.status !== 503 || attempt >= 5)
      throw new Error(`issue: ${answer.status} ${JSON.stringify(answer.json)}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/**
 * Issues `n` certificates (8 clients at a time) to a tenant whose receivers answer at once, and
 * times from the first issuance to the last arrival: deliveries/s, and the issuance rate beside it.
 */
async function throughput(
  api: Api,
  receivers: Receiver[],
  n: number,
): Promise<{ deliveries: number; issued: number }> {
  const started = performance.now();
  await mapPool(
    Array.from({ length: n }, (_, i) => i),
    8,
    (i) => issue(api, 10_000 + i),
  );
  const issuedSeconds = (performance.now() - started) / 1000;
  await waitUntil(() => receivers.every((r) => r.arrivals.size >= n), 'every delivery');
  const seconds = (performance.now() - started) / 1000;
  return { deliveries: (n * receivers.length) / seconds, issued: n / issuedSeconds };
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    issues: { type: 'string' },
    'interval-ms': { type: 'string' },
    backlog: { type: 'string' },
  });
  const issues = intOption(values.issues, 'issues', quick ? 20 : 200);
  const intervalMs = intOption(values['interval-ms'], 'interval-ms', 50);
  const backlog = intOption(values.backlog, 'backlog', quick ? 40 : 400);
  const postgres = Boolean(process.env.DATABASE_URL);
  const machine = machineInfo();

  process.stdout.write(`starting the system (${postgres ? 'postgres' : 'embedded'})… `);
  const system = await startSystem({
    mode: postgres ? 'postgres' : 'embedded',
    nats: postgres,
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn' },
  });
  process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
  const receivers: Receiver[] = [];
  try {
    // 1. Latency: one subscription, issuances one every intervalMs, each timed from its answer.
    const latencyTenant = randomUUID();
    const api = adminApi(system, await system.token(latencyTenant));
    await initializeCa(system, api, latencyTenant);
    const receiver = await Receiver.start();
    receivers.push(receiver);
    await subscribe(api, `${receiver.url}/latency`);
    process.stdout.write(`issuing ${int(issues)}, one every ${intervalMs} ms… `);
    const answered = new Map<string, number>();
    await Promise.all(
      Array.from({ length: issues }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * intervalMs));
        const id = await issue(api, i);
        answered.set(id, performance.now());
      }),
    );
    await waitUntil(() => [...answered.keys()].every((id) => receiver.arrivals.has(id)), 'every webhook');
    // An arrival before the answer reached the client counts as 0.
    const delays = [...answered].map(([id, at]) => Math.max(0, receiver.arrivals.get(id)! - at));
    const recorded = [...answered.keys()].map((id) => receiver.sinceRecorded.get(id)!);
    process.stdout.write('done\n');

    // 2. Drain: one subscription (at most 4 attempts in flight per subscription), then eight.
    process.stdout.write(`${int(backlog)} issuances, one subscription… `);
    const singleTenant = randomUUID();
    const singleApi = adminApi(system, await system.token(singleTenant));
    await initializeCa(system, singleApi, singleTenant);
    const singleReceiver = await Receiver.start();
    receivers.push(singleReceiver);
    await subscribe(singleApi, `${singleReceiver.url}/single`);
    const single = await throughput(singleApi, [singleReceiver], backlog);
    process.stdout.write(`${single.deliveries.toFixed(0)}/s\n`);
    const fanTenant = randomUUID();
    const fanApi = adminApi(system, await system.token(fanTenant));
    await initializeCa(system, fanApi, fanTenant);
    const fan: Receiver[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await Receiver.start();
      receivers.push(r);
      fan.push(r);
      await subscribe(fanApi, `${r.url}/fan-${i}`);
    }
    const perFan = Math.max(1, Math.floor(backlog / 8));
    process.stdout.write(`${int(perFan)} issuances, 8 subscriptions… `);
    const eight = await throughput(fanApi, fan, perFan);
    process.stdout.write(`${eight.deliveries.toFixed(0)}/s\n`);

    const rows = [
      ['issuance answer → webhook arrival, p50', ms(percentile(delays, 50))],
      ['issuance answer → webhook arrival, p99', ms(percentile(delays, 99))],
      ['issuance answer → webhook arrival, max', ms(Math.max(...delays))],
      ['event recorded → webhook arrival, p50', ms(percentile(recorded, 50))],
      ['event recorded → webhook arrival, p99', ms(percentile(recorded, 99))],
      [
        '1 subscription, issuing 8 at a time',
        `${single.deliveries.toFixed(0)} deliveries/s (issued ${single.issued.toFixed(0)}/s)`,
      ],
      [
        '8 subscriptions, issuing 8 at a time',
        `${eight.deliveries.toFixed(0)} deliveries/s (issued ${eight.issued.toFixed(0)}/s)`,
      ],
    ];
    for (const r of rows) process.stdout.write(`${r.join('  ')}\n`);
    report(
      {
        title: 'webhook delivery: latency and throughput',
        command: '`npm run bench -- webhooks` (`node -r @swc-node/register bench/webhooks.ts`)',
        machine,
        settings: [
          `System: ${system.description}; a local receiver on loopback answering 204 at once (WEBHOOK_ALLOW_PRIVATE_TARGETS=true).`,
          `Latency: ${int(issues)} v1 issuances through the admin API, one started every ${intervalMs} ms, to a tenant with one subscription to certificate.issued; each timed from its 200 answer to its webhook's arrival.`,
          `Throughput: ${int(backlog)} issuances, 8 at a time, to a tenant with one subscription, timed from the first issuance to the last arrival; then ${int(perFan)} to a tenant with 8 subscriptions (${int(perFan * 8)} deliveries). Delivery follows issuance, so the issuance rate of the same run is shown beside it.`,
        ],
        tables: [
          {
            title: 'Results:',
            headers: ['measure', 'value'],
            rows,
            align: ['left', 'right'],
          },
        ],
        notes: [
          'Target: p99 under 1 s from issuance answer to delivery with a healthy receiver. One replica delivers at most 32 attempts at once and 4 per subscription.',
        ],
      },
      record,
    );
  } finally {
    for (const r of receivers) await r.stop();
    await system.stop();
  }
}

runMain(main);
