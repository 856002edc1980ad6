/**
 * Issuance throughput of this checkout against another (`--against DIR`: an earlier revision, or
 * the same tree with one change taken out), both systems up at once and the load alternated between
 * them in short bursts (A B B A A B …). This machine's speed drifts by a third from one minute to
 * the next (the same signing loop: 27,000 to 38,000 a second), so two runs one after the other
 * compare the machine more than the code; bursts seconds apart see the same machine.
 *
 *   node -r @swc-node/register bench/issuance-ab.ts --against DIR [--rounds 8] [--burst 4]
 *     [--concurrency 8] [--mode embedded|postgres] [--no-record]
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { benchArgs, intOption } from './lib/args';
import { runLoad } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { cpuMsWhenQuiet, idleCpuMsPerSecond, processCpuMs } from './lib/process-cpu';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import { int, median, ratio } from './lib/stats';
import { csrIssueBody } from './lib/csr';
import { adminApi, initializeCa, ISSUE_BODY, RunningSystem, startSystem, SystemMode } from './lib/system';

const USAGE = `bench/issuance-ab.ts: POST /v1/certificates (or a CSR's v2 issuance), this checkout against another, in alternated bursts.
  --against DIR     the other checkout (node_modules beside it), required
  --rounds N        pairs of bursts (default 8; --quick: 3)
  --burst S         seconds per burst (default 4)
  --concurrency N   clients (default 8)
  --mode M          embedded (default) or postgres (DATABASE_URL, and NATS_URL when set)
  --csr             POST /v2/certificates with a fresh P-256 key's CSR per request (made before
                    each burst) instead of POST /v1/certificates
  --no-record       do not append to bench/history`;

const WARMUP_MS = 500;

interface Side {
  name: string;
  system: RunningSystem;
  token: string;
  idleMsPerSecond: number;
  rates: number[];
  cpuMs: number;
  requests: number;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    against: { type: 'string' },
    rounds: { type: 'string' },
    burst: { type: 'string' },
    concurrency: { type: 'string' },
    mode: { type: 'string' },
    csr: { type: 'boolean' },
  });
  if (typeof values.against !== 'string') throw new Error('--against DIR is required');
  const rounds = intOption(values.rounds, 'rounds', quick ? 3 : 8);
  const burstMs = intOption(values.burst, 'burst', 4) * 1000;
  const concurrency = intOption(values.concurrency, 'concurrency', 8);
  const mode: SystemMode = values.mode === 'postgres' ? 'postgres' : 'embedded';
  const machine = machineInfo();

  const sides: Side[] = [];
  try {
    for (const [name, root] of [
      ['this checkout', undefined],
      ['against', resolve(values.against)],
    ] as const) {
      process.stdout.write(`starting ${name} (${mode})… `);
      const system = await startSystem({ mode, root });
      process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
      const tenantId = randomUUID();
      const token = await system.token(tenantId);
      await initializeCa(system, adminApi(system, token), tenantId);
      sides.push({ name, system, token, idleMsPerSecond: 0, rates: [], cpuMs: 0, requests: 0 });
    }
    for (const side of sides) side.idleMsPerSecond = (await idleCpuMsPerSecond(side.system.pid)) ?? 0;

    const body = Buffer.from(JSON.stringify(ISSUE_BODY));
    let burstNumber = 0;
    const burst = async (side: Side) => {
      let sent = 0;
      // More CSRs than the fastest side has issued in a burst so far (1,000/s at first).
      const best = Math.max(1_000, ...sides.flatMap((s) => s.rates)) * 1.5;
      const csrBodies = values.csr
        ? Array.from({ length: Math.ceil((best * (burstMs + WARMUP_MS)) / 1000) }, (_, i) =>
            csrIssueBody(`b${burstNumber}-${i}.bench.example.com`),
          )
        : [];
      burstNumber++;
      const before = processCpuMs(side.system.pid);
      const result = await runLoad({
        host: '127.0.0.1',
        port: Number(new URL(side.system.adminUrl).port),
        concurrency,
        durationMs: burstMs,
        warmupMs: WARMUP_MS,
        keepAlive: true,
        okStatus: (status) => status === 201 || status === 200,
        next: (i) => {
          sent++;
          if (values.csr && i >= csrBodies.length) throw new Error(`more than ${csrBodies.length} requests`);
          return {
            method: 'POST',
            path: values.csr ? '/v2/certificates' : '/v1/certificates',
            headers: { Authorization: `Bearer ${side.token}`, 'Content-Type': 'application/json' },
            body: values.csr ? csrBodies[i] : body,
          };
        },
      });
      // Until the events the burst set off are consumed, so the other side's burst runs alone.
      const after = await cpuMsWhenQuiet(side.system.pid, 30_000, side.idleMsPerSecond);
      if (result.errors > 0) throw new Error(`${side.name}: ${JSON.stringify(result.errorKinds)}`);
      side.rates.push(result.perSecond);
      if (before !== undefined && after !== undefined) {
        side.cpuMs += after - before;
        side.requests += sent;
      }
      process.stdout.write(`  ${side.name}: ${int(result.perSecond)}/s\n`);
    };
    for (let round = 0; round < rounds; round++) {
      // A B, then B A: a drift within a round falls on both sides alike.
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) await burst(side);
    }

    const [ours, theirs] = sides;
    const pairRatios = ours.rates.map((rate, i) => rate / theirs.rates[i]);
    const total = (side: Side) => side.rates.reduce((a, b) => a + b, 0);
    const cpu = (side: Side) => (side.requests > 0 ? (side.cpuMs / side.requests).toFixed(2) : 'n/a');
    const table = {
      headers: ['system', 'certificates/s per burst', 'median', 'CPU per request (system process)'],
      rows: sides.map((side) => [
        side.name,
        side.rates.map((rate) => int(rate)).join(', '),
        int(median(side.rates)),
        `${cpu(side)} ms`,
      ]),
    };
    const summary = `this checkout / against: **${ratio(total(ours), total(theirs))}** (sums); pairs ${pairRatios
      .map((r) => r.toFixed(2))
      .join(', ')}, median ${median(pairRatios).toFixed(2)}`;
    process.stdout.write(`\n${summary}\n`);
    report(
      {
        title: `issuance${values.csr ? ' from a CSR' : ''}, this checkout against ${values.against}, alternated bursts`,
        command: `npm run bench -- issuance-ab --against ${values.against}`,
        machine,
        settings: [
          `${mode}; ${rounds} rounds of a ${burstMs / 1000} s burst each side (order A B, B A, …), ${concurrency} clients, keep-alive, ${WARMUP_MS} ms of each burst not counted; each side quiet again (its events consumed) before the next burst. CPU: the system process's, from a burst's start until quiet, per request sent.`,
        ],
        tables: [table],
        notes: [summary],
      },
      record,
    );
  } finally {
    for (const side of sides) await side.system.stop();
  }
}

runMain(main);
