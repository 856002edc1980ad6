/**
 * Issuance from a caller's CSR: our `POST /v2/certificates` with `csrPem` against step-ca's
 * `POST /1.0/sign` with a JWK provisioner, in interleaved rounds (ours, step-ca, ours, step-ca, …)
 * with the same loader, 8 concurrent on kept-alive connections (step-ca's over TLS, as it serves
 * only TLS), a fresh P-256 key and CSR per request, and step-ca's one-time tokens, all made before
 * each timed window. Per round: certificates/s, p50/p99, the server's CPU per certificate (our
 * process, plus on Postgres the CPU of the database's backends serving our database; step-ca's
 * process, its badger database inside it) and the machine's load average.
 *
 * step-ca: `STEP_CA_BIN`, else `step-ca` on PATH, else the default output of the project's
 * step-ca build script (`$XDG_CACHE_HOME/step-ca/step-ca`); the benchmark skips it when none runs.
 *
 *   node -r @swc-node/register bench/csr-issuance.ts [--rounds 3] [--duration 8] [--concurrency 8] [--no-record]
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArgs, intOption } from './lib/args';
import { csrIssueBody, freshCsrPem, jwkProvisionerKey, stepSignToken } from './lib/csr';
import { httpCall, LoadResult, runLoad } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { makeOpensslCa } from './lib/openssl-ca';
import { cpuMsWhenQuiet, idleCpuMsPerSecond, mainThreadCpuMs, processCpuMs } from './lib/process-cpu';
import { mustRun, runMain, tempDir } from './lib/proc';
import { report } from './lib/report';
import { launchStepCa, stepCaBinary } from './lib/step-ca';
import { adminApi, initializeCa, RunningSystem, startSystem, SystemMode, withClient } from './lib/system';
import { int, median, ms, ratio } from './lib/stats';

const USAGE = `bench/csr-issuance.ts: POST /v2/certificates with csrPem against step-ca's /1.0/sign (JWK provisioner).
  --rounds N       interleaved rounds (default 3; --quick: 1)
  --duration S     seconds measured per round and server (default 8; --quick: 3)
  --concurrency N  concurrent requests (default 8)
  --cpu-prof DIR   run our system under \`node --cpu-prof\` (profiles written to DIR at its exit); each
                   round prints the options for bench/profiles/by-stage.js
  --no-record      do not append to bench/history`;

const WARMUP_MS = 1_000;
/** Requests prepared per second of a server's first window; later ones: twice its best rate so far. */
const FIRST_PREPARED_PER_SECOND = 2_000;

interface Round {
  what: string;
  round: number;
  load: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpuPerCert: number;
  /** cpuPerCert less what the server spends idle (its pollers and timers) over the same time. */
  netCpuPerCert: number;
  errors: string;
}

interface Server {
  what: string;
  /** Prepares `count` requests (keys, CSRs, tokens), then runs one timed window. */
  round(
    count: number,
    concurrency: number,
    durationMs: number,
  ): Promise<{ result: LoadResult; cpuMs: number; idleCpuMs: number }>;
  stop(): Promise<void>;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    rounds: { type: 'string' },
    duration: { type: 'string' },
    concurrency: { type: 'string' },
    'cpu-prof': { type: 'string' },
  });
  const profileDir = typeof values['cpu-prof'] === 'string' ? resolve(values['cpu-prof']) : undefined;
  const rounds = intOption(values.rounds, 'rounds', quick ? 1 : 3);
  const durationMs = intOption(values.duration, 'duration', quick ? 3 : 8) * 1000;
  const concurrency = intOption(values.concurrency, 'concurrency', 8);
  const machine = machineInfo();
  const modes: SystemMode[] = process.env.DATABASE_URL ? ['embedded', 'postgres'] : ['embedded'];

  const servers: Server[] = [];
  for (const mode of modes) servers.push(await ours(mode, profileDir));
  const stepCa = await startStepCa();
  if (stepCa) servers.push(stepCa);

  const rows: Round[] = [];
  const best = new Map<Server, number>();
  for (let round = 1; round <= rounds; round++) {
    for (const server of servers) {
      const perSecond = Math.max(200, 2 * (best.get(server) ?? FIRST_PREPARED_PER_SECOND / 2));
      const count = Math.ceil(((durationMs + WARMUP_MS) / 1000 + 2) * perSecond);
      const load = loadavg()[0];
      const { result, cpuMs, idleCpuMs } = await server.round(count, concurrency, durationMs);
      const kinds = Object.entries(result.errorKinds).map(([k, n]) => `${n} ${k}`);
      const row: Round = {
        what: server.what,
        round,
        load,
        perSecond: result.perSecond,
        p50: result.p50,
        p99: result.p99,
        cpuPerCert: result.okTotal > 0 ? cpuMs / result.okTotal : NaN,
        netCpuPerCert: result.okTotal > 0 ? (cpuMs - idleCpuMs) / result.okTotal : NaN,
        errors: result.errors === 0 ? '0' : kinds.join(', '),
      };
      rows.push(row);
      best.set(server, Math.max(best.get(server) ?? 0, result.okTotal / ((durationMs + WARMUP_MS) / 1000)));
      process.stdout.write(
        `round ${round} ${row.what.padEnd(58)} ${int(row.perSecond).padStart(6)}/s  p50 ${ms(row.p50)}  p99 ${ms(row.p99)}  ${row.cpuPerCert.toFixed(2)} ms CPU/cert (${row.netCpuPerCert.toFixed(2)} ms less idle)  load ${load.toFixed(1)}  errors ${row.errors}\n`,
      );
    }
  }
  for (const server of servers) await server.stop();

  const medians = servers.map((server) => {
    const mine = rows.filter((row) => row.what === server.what);
    return {
      what: server.what,
      perSecond: median(mine.map((row) => row.perSecond)),
      cpuPerCert: median(mine.map((row) => row.cpuPerCert)),
      netCpuPerCert: median(mine.map((row) => row.netCpuPerCert)),
      p50: median(mine.map((row) => row.p50)),
      p99: median(mine.map((row) => row.p99)),
    };
  });
  const peer = stepCa ? medians.find((m) => m.what === stepCa.what) : undefined;
  report(
    {
      title: 'issuance from a CSR, `POST /v2/certificates` (`csrPem`) vs step-ca `/1.0/sign`',
      command: '`npm run bench -- csr-issuance` (`node -r @swc-node/register bench/csr-issuance.ts`)',
      machine,
      settings: [
        `${rounds} interleaved rounds of ${durationMs / 1000} s per server after ${WARMUP_MS / 1000} s warm-up, ${concurrency} concurrent, one kept-alive connection per worker, closed loop. Every request carries a fresh P-256 key's CSR (CN and one DNS SAN), made with the step-ca tokens before the window.`,
        "Ours: `POST /v2/certificates` with `csrPem` (usage Server, the CSR's name as CN and SAN, 90 days), one development-key ES256 token per tenant: JWT check, DTO validation, the CSR read and its signature verified, request/reply to issuance, signing by the tenant CA, a group-committed transaction (certificate row + outbox event), confirmation by the OCSP responder before the answer (read-your-writes), audit. CPU: our process; on Postgres also the backends serving our database (pg_stat_activity), not Postgres's shared background processes.",
        stepCa
          ? "step-ca 0.19 (`step-ca ca.json`, badger database, its P-256 root signing leaves as ours does): `POST /1.0/sign` with `{csr, ott}` over TLS 1.3, a JWK provisioner's one-time token per request (ES256; sub and sans the CSR's name), so each certificate is two durable writes (the token's use, the certificate). CPU: step-ca's process."
          : "**step-ca not available**: set `STEP_CA_BIN` or build it with the project's step-ca build script.",
      ],
      tables: [
        {
          headers: [
            'round',
            'server',
            'load average',
            'certificates/s',
            'p50',
            'p99',
            'server CPU per certificate',
            'errors',
          ],
          rows: rows.map((r) => [
            String(r.round),
            r.what,
            r.load.toFixed(1),
            int(r.perSecond),
            ms(r.p50),
            ms(r.p99),
            `${r.cpuPerCert.toFixed(2)} ms`,
            `${r.netCpuPerCert.toFixed(2)} ms`,
            r.errors,
          ]),
          align: ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
        },
        {
          title: 'Medians over the rounds:',
          headers: [
            'server',
            'certificates/s',
            'p50',
            'p99',
            'server CPU per certificate',
            'ratio to step-ca (rate)',
            'CPU vs step-ca',
          ],
          rows: medians.map((m) => [
            m.what,
            int(m.perSecond),
            ms(m.p50),
            ms(m.p99),
            `${m.cpuPerCert.toFixed(2)} ms`,
            `${m.netCpuPerCert.toFixed(2)} ms`,
            peer ? `**${ratio(m.perSecond, peer.perSecond)}**` : 'n/a',
            peer ? `${(m.cpuPerCert / peer.cpuPerCert).toFixed(1)}x` : 'n/a',
          ]),
        },
      ],
      notes: [
        '"less idle": the server CPU per certificate less what the server spends while idle (measured for 2 s before each round: pollers, timers) over the round; at a low rate on a busy machine the idle share is most of the gross figure.',
        'Targets: at least 0.5x step-ca with under 2 ms of server CPU per certificate, durable and audited.',
      ],
    },
    record,
  );
}

async function ours(mode: SystemMode, profileDir: string | undefined): Promise<Server> {
  process.stdout.write(`starting the system (${mode})… `);
  const system = await startSystem({
    mode,
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
  const tenantId = randomUUID();
  const token = await system.token(tenantId);
  await initializeCa(system, adminApi(system, token), tenantId);
  const port = Number(new URL(system.adminUrl).port);
  const probe = await httpCall(`${system.adminUrl}/v2/certificates`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: csrIssueBody('probe.bench.example.com'),
  });
  if (probe.status !== 200 && probe.status !== 201)
    throw new Error(`CSR issuance: ${probe.status} ${probe.body.toString()}`);
  let batch = 0;
  return {
    what: `ours, ${system.description}`,
    async round(count, concurrency, durationMs) {
      batch++;
      const bodies = Array.from({ length: count }, (_, i) =>
        csrIssueBody(`b${batch}-${i}.bench.example.com`),
      );
      const idle = (await idleCpuMsPerSecond(system.pid, 2_000)) ?? 0;
      const before = await serverCpuMs(system);
      const mainBefore = mainThreadCpuMs(system.pid);
      const processBefore = processCpuMs(system.pid);
      const windowFrom = process.hrtime.bigint() / 1000n;
      const from = performance.now();
      const result = await runLoad({
        host: '127.0.0.1',
        port,
        concurrency,
        durationMs,
        warmupMs: WARMUP_MS,
        keepAlive: true,
        okStatus: (status) => status === 201 || status === 200,
        next: (i) => ({
          method: 'POST',
          path: '/v2/certificates',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: prepared(bodies, i),
        }),
      });
      // Until the events the load set off are consumed (the responder's and webhooks' projections).
      await cpuMsWhenQuiet(system.pid, 60_000, idle);
      const after = await serverCpuMs(system);
      const mainAfter = mainThreadCpuMs(system.pid);
      const processAfter = processCpuMs(system.pid);
      if (mainBefore !== undefined && mainAfter !== undefined && processBefore !== undefined)
        process.stdout.write(
          `  by-stage.js options (${system.description}): --window ${windowFrom}-${process.hrtime.bigint() / 1000n} --issued ${result.okTotal} --process-cpu-ms ${(processAfter ?? NaN) - processBefore} --main-cpu-ms ${mainAfter - mainBefore}\n`,
        );
      return { result, cpuMs: after - before, idleCpuMs: (idle * (performance.now() - from)) / 1000 };
    },
    stop: () => system.stop(),
  };
}

/** Our process's CPU, plus on Postgres that of the backends connected to our database. */
async function serverCpuMs(system: RunningSystem): Promise<number> {
  let total = processCpuMs(system.pid) ?? NaN;
  if (system.mode === 'postgres' && system.databaseUrl) {
    const name = new URL(system.databaseUrl).pathname.slice(1);
    const pids = await withClient(system.databaseUrl, async (client) => {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      return rows.map((row) => row.pid);
    });
    for (const pid of pids) total += processCpuMs(pid) ?? 0;
  }
  return total;
}

/** step-ca on a throwaway P-256 root (made by openssl) that signs leaves, a JWK provisioner, badger. */
async function startStepCa(): Promise<Server | undefined> {
  const binary = await stepCaBinary();
  if (!binary) {
    process.stdout.write('step-ca not found (STEP_CA_BIN, PATH): skipped\n');
    return undefined;
  }
  const dir = tempDir('csr-issuance-step');
  await makeOpensslCa(dir);
  // step-ca reads SEC1 or PKCS#8 PEM; its certificate signs leaves, as our v1 tenant root does.
  await mustRun('openssl', ['ec', '-in', 'ca.key', '-out', 'ca-ec.key'], { cwd: dir });
  const key = jwkProvisionerKey();
  const provisioner = 'bench';
  const { port, child, stop } = await launchStepCa(binary, dir, {
    root: 'ca.pem',
    crt: 'ca.pem',
    key: 'ca-ec.key',
    provisioners: [
      {
        type: 'JWK',
        name: provisioner,
        key: key.jwk,
        claims: { defaultTLSCertDuration: '2160h', maxTLSCertDuration: '2160h' },
      },
    ],
  });
  const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
  const audience = `https://127.0.0.1:${port}/1.0/sign`;
  const body = (name: string) =>
    Buffer.from(
      JSON.stringify({ csr: freshCsrPem(name), ott: stepSignToken(key, provisioner, audience, name) }),
    );
  // Ready when one certificate is signed.
  const deadline = Date.now() + 30_000;
  for (let i = 0; ; i++) {
    const probe = await runLoad({
      host: '127.0.0.1',
      port,
      concurrency: 1,
      durationMs: 1,
      warmupMs: 0,
      keepAlive: true,
      tls: { ca },
      okStatus: (status) => status === 201,
      next: () => ({
        method: 'POST',
        path: '/1.0/sign',
        headers: { 'Content-Type': 'application/json' },
        body: body(`probe-${i}.bench.example.com`),
      }),
    }).catch(() => undefined);
    if (probe && probe.okTotal > 0) break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`step-ca did not sign (${JSON.stringify(probe?.errorKinds)}); its config is in ${dir}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  let batch = 0;
  return {
    what: 'step-ca 0.19, /1.0/sign (JWK one-time token, TLS)',
    async round(count, concurrency, durationMs) {
      batch++;
      const bodies = Array.from({ length: count }, (_, i) => body(`s${batch}-${i}.bench.example.com`));
      const idle = (await idleCpuMsPerSecond(child.pid!, 2_000)) ?? 0;
      const before = processCpuMs(child.pid!) ?? NaN;
      const from = performance.now();
      const result = await runLoad({
        host: '127.0.0.1',
        port,
        concurrency,
        durationMs,
        warmupMs: WARMUP_MS,
        keepAlive: true,
        tls: { ca },
        okStatus: (status) => status === 201,
        next: (i) => ({
          method: 'POST',
          path: '/1.0/sign',
          headers: { 'Content-Type': 'application/json' },
          body: prepared(bodies, i),
        }),
      });
      const after = (await cpuMsWhenQuiet(child.pid!, 10_000, idle)) ?? NaN;
      return { result, cpuMs: after - before, idleCpuMs: (idle * (performance.now() - from)) / 1000 };
    },
    stop,
  };
}

/** The i-th prepared request: each key, CSR and token is sent once. */
function prepared(bodies: Buffer[], i: number): Buffer {
  if (i >= bodies.length) throw new Error(`more requests than the ${bodies.length} prepared`);
  return bodies[i];
}

runMain(main);
