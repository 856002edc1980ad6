/**
 * ACME orders (RFC 8555) against step-ca in the same run: each order is new-order, the http-01
 * challenge validated for real (the loader serves the answer itself), finalize with a fresh P-256
 * CSR, and the certificate's download; one account per client, made before the timed window.
 *
 * 1. Timeline: orders one at a time, every request timed, with the servers' CPU read around it
 *    (ours: the system's process, plus the Postgres backends of its database on Postgres).
 * 2. Throughput: closed loop at --concurrency clients, ours and step-ca interleaved over --rounds.
 *
 * Ours: embedded always, and Postgres + NATS when DATABASE_URL (and NATS_URL) are set. step-ca:
 * STEP_CA_BIN or `step-ca` on PATH (skipped, and said so, when neither).
 *
 *   node -r @swc-node/register bench/acme.ts [--duration 10] [--rounds 3] [--concurrency 8] [--timeline 30] [--quick] [--no-record]
 */
import { loadavg } from 'node:os';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { randomBytes } from 'node:crypto';
import { mapPool } from '@ca/test-support';
import {
  AcmeLoadClient,
  Http01Responder,
  LoopbackDns,
  ORDER_STEPS,
  OrderStep,
  POLL_MS,
  StepRecorder,
} from './lib/acme-load';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { processCpuMs } from './lib/process-cpu';
import { runMain } from './lib/proc';
import { report, Table } from './lib/report';
import { int, median, ms, percentile } from './lib/stats';
import { startStepCa, stepCaBinary } from './lib/step-ca';
import { measureTunnel, TunnelCost } from './lib/tunnel-cost';
import { acmeTenant } from './lib/acme-tenant';
import { RunningSystem, startSystem, SystemMode } from './lib/system';

const USAGE = `bench/acme.ts: ACME orders (http-01, finalize, download), ours against step-ca.
  --duration S      seconds per throughput round and server (default 10; --quick: 4)
  --rounds N        interleaved rounds (default 3; --quick: 2)
  --concurrency C   clients, one account each (default 8)
  --timeline N      orders timed request by request, one at a time (default 30; --quick: 10)
  --modes LIST      ours: embedded,postgres (default: both when DATABASE_URL is set)
  --node-args "A B" flags for our system's node (e.g. "--cpu-prof --cpu-prof-dir=DIR")
  --no-record       do not append to bench/history`;

/** Where the loader answers http-01: a loopback address of its own, on the port RFC 8555 8.3 names. */
const HTTP01_HOST = process.env.BENCH_HTTP01_HOST ?? '127.0.3.1';
const HTTP01_PORT = 80;
const DOMAIN = 'acme-bench.test';
const WARMUP_MS = 1_000;

interface Target {
  name: string;
  directoryUrl: string;
  agent: HttpAgent | HttpsAgent;
  /** CPU (ms) of the server's processes so far: ours plus its database's backends; step-ca's one. */
  cpuMs(): Promise<number>;
  eab?: () => Promise<{ keyId: string; hmacKey: string }>;
  clients: AcmeLoadClient[];
}

interface Round {
  orders: number;
  seconds: number;
  latencies: number[];
  cpuMs: number;
  /** Orders completed while the CPU was counted (warm-up included). */
  ordersInCpu: number;
  errors: number;
  requests: number;
  load: number;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    duration: { type: 'string' },
    rounds: { type: 'string' },
    concurrency: { type: 'string' },
    timeline: { type: 'string' },
    modes: { type: 'string' },
    'node-args': { type: 'string' },
  });
  const nodeArgs =
    typeof values['node-args'] === 'string' ? values['node-args'].split(' ').filter(Boolean) : [];
  const durationMs = intOption(values.duration, 'duration', quick ? 4 : 10) * 1000;
  const rounds = intOption(values.rounds, 'rounds', quick ? 2 : 3);
  const concurrency = intOption(values.concurrency, 'concurrency', 8);
  const timelineOrders = intOption(values.timeline, 'timeline', quick ? 10 : 30);
  const modes = (
    typeof values.modes === 'string'
      ? values.modes.split(',')
      : process.env.DATABASE_URL
        ? ['embedded', 'postgres']
        : ['embedded']
  ) as SystemMode[];
  const machine = machineInfo();

  const responder = await Http01Responder.start(HTTP01_HOST, HTTP01_PORT);
  const dns = await LoopbackDns.start(HTTP01_HOST);
  const targets: Target[] = [];
  const descriptions: string[] = [];
  for (const mode of modes) {
    process.stdout.write(`starting ours (${mode})… `);
    const system = await startSystem({
      mode,
      nodeArgs,
      env: {
        ACME_HTTP01_PORT: String(HTTP01_PORT),
        ACME_RESOLVE: `*.${DOMAIN}=${HTTP01_HOST}`,
        ACME_ALLOW_PRIVATE_TARGETS: 'true',
        ACME_RATE_LIMIT_PER_TENANT: '10000000',
        ACME_RATE_LIMIT_PER_SOURCE: '10000000',
        ACME_RATE_LIMIT_PER_ACCOUNT: '10000000',
        ACME_NEW_ORDERS_PER_ACCOUNT: '10000000',
      },
    });
    process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
    descriptions.push(system.description);
    targets.push(await oursTarget(system, concurrency));
  }
  let peerVersion: string | undefined;
  const binary = await stepCaBinary();
  if (binary) {
    const stepCa = await startStepCa(binary, dns.address);
    peerVersion = stepCa.version;
    process.stdout.write(`step-ca ready (${stepCa.version})\n`);
    targets.push({
      name: 'step-ca',
      directoryUrl: stepCa.directoryUrl,
      agent: stepCa.agent(concurrency + 1),
      cpuMs: async () => processCpuMs(stepCa.pid) ?? NaN,
      clients: [],
    });
  } else {
    process.stdout.write('step-ca not found (STEP_CA_BIN or PATH): ours only\n');
  }

  for (const target of targets) {
    for (let i = 0; i < concurrency; i++) {
      const client = new AcmeLoadClient({
        directoryUrl: target.directoryUrl,
        agent: target.agent,
        responder,
        eab: target.eab ? await target.eab() : undefined,
      });
      await client.open();
      target.clients.push(client);
    }
  }

  // --- 1. Timeline: one order at a time, every request timed with the servers' CPU around it. ---
  const timelines = new Map<string, Map<OrderStep, { wall: number[]; cpu: number[] }>>();
  for (const target of targets) {
    const steps = new Map<OrderStep, { wall: number[]; cpu: number[] }>();
    const recorder: StepRecorder = {
      async around(step, work) {
        const cpuBefore = await target.cpuMs();
        const started = performance.now();
        const result = await work();
        const wall = performance.now() - started;
        const cpu = (await target.cpuMs()) - cpuBefore;
        const entry = steps.get(step) ?? { wall: [], cpu: [] };
        entry.wall.push(wall);
        entry.cpu.push(cpu);
        steps.set(step, entry);
        return result;
      },
    };
    // Accounts: made as the throughput's were, a few of them, for the new-account row.
    for (let i = 0; i < Math.min(5, timelineOrders); i++) {
      const client = new AcmeLoadClient({
        directoryUrl: target.directoryUrl,
        agent: target.agent,
        responder,
        eab: target.eab ? await target.eab() : undefined,
      });
      await client.open(recorder);
    }
    const client = target.clients[0];
    for (let i = 0; i < 3; i++) await client.order(orderName()); // warm-up
    const started = performance.now();
    for (let i = 0; i < timelineOrders; i++) await client.order(orderName(), recorder, true);
    process.stdout.write(
      `timeline ${target.name}: ${timelineOrders} orders in ${int(performance.now() - started)} ms\n`,
    );
    timelines.set(target.name, steps);
  }

  // --- 2. Throughput, interleaved rounds. ---
  const results = new Map<string, Round[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const result = await throughput(target, durationMs);
      results.get(target.name)!.push(result);
      process.stdout.write(
        `round ${round + 1} ${target.name}: ${(result.orders / result.seconds).toFixed(1)} orders/s, p50 ${ms(percentile(result.latencies, 50))}, ` +
          `${(result.cpuMs / result.orders).toFixed(2)} ms CPU/order, load ${result.load.toFixed(2)}${result.errors ? `, ${result.errors} errors` : ''}\n`,
      );
    }
  }
  await responder.close();
  await dns.close();
  let tunnel: TunnelCost | undefined;
  if (process.env.NATS_URL && modes.includes('postgres')) {
    tunnel = await measureTunnel(process.env.NATS_URL, quick ? 500 : 2_000);
    process.stdout.write(
      `tunnel: ${tunnel.wallMsEach.toFixed(3)} ms, ${tunnel.cpuMsEach.toFixed(3)} ms CPU per round trip (codec alone ${tunnel.codecCpuMsEach.toFixed(3)} ms)\n`,
    );
  }

  // --- Report ---
  const timelineTables: Table[] = targets.map((target) => {
    const steps = timelines.get(target.name)!;
    const rows: string[][] = [];
    let wallTotal = 0;
    let cpuTotal = 0;
    for (const step of ORDER_STEPS) {
      const entry = steps.get(step);
      if (!entry) continue;
      // Per order: a step that repeats (polls) counts every time; new-account is per account.
      const perOrder = step === 'new-account' ? entry.wall.length : timelineOrders;
      const wallSum = entry.wall.reduce((a, b) => a + b, 0);
      const cpuSum = entry.cpu.reduce((a, b) => a + b, 0);
      if (step !== 'new-account') {
        wallTotal += wallSum / perOrder;
        cpuTotal += cpuSum / perOrder;
      }
      rows.push([
        step,
        (entry.wall.length / perOrder).toFixed(step === 'validation' || step === 'order poll' ? 1 : 0),
        ms(median(entry.wall)),
        ms(wallSum / perOrder),
        (cpuSum / perOrder).toFixed(1),
      ]);
    }
    rows.push([
      '**order (without new-account)**',
      '',
      '',
      `**${ms(wallTotal)}**`,
      `**${cpuTotal.toFixed(1)}**`,
    ]);
    return {
      title: `Timeline, ${target.name} (${timelineOrders} orders one at a time; CPU in ms, /proc ticks of 10 ms averaged):`,
      headers: ['step', 'requests/order', 'p50 wall', 'wall/order', 'server CPU/order (ms)'],
      rows,
    };
  });
  const stepCa = results.get('step-ca');
  const peerRate = stepCa ? rate(stepCa) : NaN;
  const peerP50 = stepCa
    ? percentile(
        stepCa.flatMap((r) => r.latencies),
        50,
      )
    : NaN;
  const peerCpu = stepCa ? cpuPerOrder(stepCa) : NaN;
  const summary: string[][] = targets.map((target) => {
    const rs = results.get(target.name)!;
    const all = rs.flatMap((r) => r.latencies);
    const ours = target.name !== 'step-ca';
    return [
      target.name,
      rs.map((r) => (r.orders / r.seconds).toFixed(1)).join(' / '),
      rate(rs).toFixed(1),
      ours && stepCa ? `**${(rate(rs) / peerRate).toFixed(2)}x**` : '',
      ms(percentile(all, 50)),
      ms(percentile(all, 99)),
      ours && stepCa ? `${(percentile(all, 50) / peerP50).toFixed(2)}x` : '',
      cpuPerOrder(rs).toFixed(2),
      ours && stepCa ? `${(cpuPerOrder(rs) / peerCpu).toFixed(2)}x` : '',
      (rs.reduce((a, r) => a + r.requests, 0) / rs.reduce((a, r) => a + r.orders, 0)).toFixed(1),
      rs.map((r) => r.load.toFixed(2)).join(' / '),
      String(rs.reduce((a, r) => a + r.errors, 0)),
    ];
  });
  report(
    {
      title: `ACME orders (http-01, finalize, download) vs step-ca, ${concurrency} clients`,
      command: '`npm run bench -- acme` (`node -r @swc-node/register bench/acme.ts`)',
      machine,
      settings: [
        `Ours: ${descriptions.join('; ')}; ACME through the gateway (GATEWAY_PUBLIC_URL/acme/{tenant}), EAB accounts, ACME_* rate limits raised so that none cuts the run short. ${peerVersion ? `Peer: ${peerVersion}, an ACME provisioner, badger database, P-256 root and intermediate, TLS (the loader pays the handshakes once: keep-alive).` : 'Peer: step-ca not found (STEP_CA_BIN or PATH).'}`,
        `Each order: new-order, the authorization (POST-as-GET), the http-01 challenge POSTed (the loader answers http-01 on ${HTTP01_HOST}:${HTTP01_PORT}), the authorization polled until valid when the challenge answer is not (Retry-After honoured up to 1 s, else every ${POLL_MS} ms), finalize with a fresh P-256 CSR, the order polled while processing, the chain downloaded. Nonces come from the previous answer. One account per client, made before the window. ${rounds} interleaved rounds of ${durationMs / 1000} s per server after ${WARMUP_MS / 1000} s of warm-up.`,
        "CPU per order: the server's processes from the round's start until quiet (the events an issuance sets off included), over the orders completed: ours is the system's Node process plus, on Postgres, the backends of its database (Postgres's background writers not counted); step-ca is its process. The load average is the 1-minute one at the round's end.",
      ],
      tables: [
        {
          title: 'Throughput (orders/s per round, then all rounds together):',
          headers: [
            'server',
            'orders/s per round',
            'orders/s',
            'vs step-ca',
            'p50',
            'p99',
            'p50 vs step-ca',
            'CPU ms/order',
            'CPU vs step-ca',
            'requests/order',
            'load',
            'errors',
          ],
          rows: summary,
        },
        ...timelineTables,
      ],
      notes: [
        ...(tunnel
          ? [
              `The gateway → acme tunnel alone (bench/lib/tunnel-cost.ts: NATS request/reply of an ACME request's size, base64 in JSON, both ends in the loader, ${tunnel.roundTrips} one at a time): ${tunnel.wallMsEach.toFixed(3)} ms and ${tunnel.cpuMsEach.toFixed(3)} ms of CPU per round trip, of which base64 and JSON ${tunnel.codecCpuMsEach.toFixed(3)} ms.`,
            ]
          : []),
        'Ratios: ours / step-ca (above 1 for orders/s is better; below 1 for p50 and CPU is better).',
        "Timeline: `requests/order` above 1 for validation or order poll means the client had to poll; wall/order is the sum of the step's requests per order.",
      ],
    },
    record,
  );
  for (const target of targets) target.agent.destroy();
}

let counter = 0;
const runId = randomBytes(3).toString('hex');
function orderName(): string {
  return `o${++counter}-${runId}.${DOMAIN}`;
}

function rate(rounds: Round[]): number {
  return rounds.reduce((a, r) => a + r.orders, 0) / rounds.reduce((a, r) => a + r.seconds, 0);
}

function cpuPerOrder(rounds: Round[]): number {
  return rounds.reduce((a, r) => a + r.cpuMs, 0) / rounds.reduce((a, r) => a + r.ordersInCpu, 0);
}

async function throughput(target: Target, durationMs: number): Promise<Round> {
  const latencies: number[] = [];
  let errors = 0;
  let completed = 0;
  const requestsBefore = target.clients.reduce((a, c) => a + c.requests, 0);
  const cpuBefore = await target.cpuMs();
  const start = performance.now();
  const measureFrom = start + WARMUP_MS;
  const end = measureFrom + durationMs;
  let lastError: unknown;
  await mapPool(target.clients, target.clients.length, async (client) => {
    while (performance.now() < end) {
      const sent = performance.now();
      try {
        await client.order(orderName());
        completed++;
        // Orders completed in the window count, whenever they started (an order may outlast a short window).
        const done = performance.now();
        if (done >= measureFrom && done <= end) latencies.push(done - sent);
      } catch (error) {
        errors++;
        lastError = error;
        if (errors > 20) throw error;
      }
    }
  });
  if (lastError) process.stdout.write(`  last error (${target.name}): ${String(lastError)}\n`);
  const cpuAfter = await cpuWhenQuiet(target);
  const requests = target.clients.reduce((a, c) => a + c.requests, 0) - requestsBefore;
  return {
    orders: latencies.length,
    seconds: durationMs / 1000,
    latencies,
    cpuMs: cpuAfter - cpuBefore,
    ordersInCpu: completed,
    errors,
    requests: (requests * latencies.length) / Math.max(1, completed),
    load: loadavg()[0],
  };
}

/** The server's CPU once it has gone quiet (under 3% of a core over 300 ms), at most 5 s after the load. */
async function cpuWhenQuiet(target: Target): Promise<number> {
  let last = await target.cpuMs();
  for (const until = Date.now() + 5_000; Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = await target.cpuMs();
    const busy = now - last;
    last = now;
    if (busy < 10) break;
  }
  return last;
}

async function oursTarget(system: RunningSystem, concurrency: number): Promise<Target> {
  const tenant = await acmeTenant(system);
  return {
    name: `ours, ${system.mode === 'embedded' ? 'embedded' : 'Postgres + NATS'}`,
    directoryUrl: tenant.directoryUrl,
    agent: new HttpAgent({ keepAlive: true, maxSockets: concurrency + 1 }),
    cpuMs: tenant.cpuMs,
    eab: tenant.eab,
    clients: [],
  };
}

runMain(main);
