/**
 * Issuance throughput: `POST /v1/certificates` through the gateway (JWT, validation, the issuance
 * service: P-256 key, signing, persistence with its outbox event), closed loop at concurrency 1
 * and 8. Embedded mode always; also on DATABASE_URL's Postgres (and NATS_URL's NATS) when set.
 *
 * Peer: `cfssl serve` + /api/v1/cfssl/newcert when `cfssl` is on PATH; otherwise the openssl CLI
 * issuing one certificate per pipeline (`openssl req -new -newkey ec … | openssl x509 -req -CA …`),
 * clearly labelled. Floor for context: our pki lib alone, in process (key + certificate + PEM).
 *
 *   node -r @swc-node/register bench/issuance.ts [--duration 10] [--concurrency 1,8] [--quick] [--no-record]
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchArgs, intListOption, intOption } from './lib/args';
import { freePort, httpCall, LoadResult, runLoad } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { makeOpensslCa } from './lib/openssl-ca';
import { mapPool } from '@ca/test-support';
import { cpuMsWhenQuiet, idleCpuMsPerSecond, mainThreadCpuMs, processCpuMs } from './lib/process-cpu';
import {
  ensureDebianPackage,
  mustRun,
  onCleanup,
  runCommand,
  runMain,
  spawnGroup,
  stopGroup,
  tempDir,
} from './lib/proc';
import { report } from './lib/report';
import { adminApi, initializeCa, ISSUE_BODY, RunningSystem, startSystem, SystemMode } from './lib/system';
import { int, median, ms, percentile, ratio } from './lib/stats';
import * as pki from '@ca/pki';

const USAGE = `bench/issuance.ts: POST /v1/certificates against cfssl or the openssl CLI.
  --duration S     seconds measured per cell (default 10; --quick: 3)
  --concurrency L  comma-separated (default 1,8)
  --quick          shorter
  --cpu-prof DIR   run the system under \`node --cpu-prof\`, profiles written to DIR at its exit
  --no-record      do not append to bench/history`;

const WARMUP_MS = 1_000;

interface Row {
  what: string;
  concurrency: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: string;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    duration: { type: 'string' },
    concurrency: { type: 'string' },
    'cpu-prof': { type: 'string' },
  });
  const profileDir = typeof values['cpu-prof'] === 'string' ? resolve(values['cpu-prof']) : undefined;
  const durationMs = intOption(values.duration, 'duration', quick ? 3 : 10) * 1000;
  const concurrencies = intListOption(values.concurrency, 'concurrency', [1, 8]);
  const machine = machineInfo();
  const modes: SystemMode[] = process.env.DATABASE_URL ? ['embedded', 'postgres'] : ['embedded'];
  const rows: Row[] = [];
  const descriptions: string[] = [];

  for (const mode of modes) {
    process.stdout.write(`starting the system (${mode})… `);
    const system = await startSystem({
      mode,
      nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
    descriptions.push(system.description);
    for (const concurrency of concurrencies) {
      const result = await issueThroughApi(system, concurrency, durationMs);
      rows.push(row(`ours, ${system.description}`, concurrency, result));
      log(rows[rows.length - 1]);
    }
    await system.stop();
  }

  // --- Peer ---
  const dir = tempDir('issuance');
  await makeOpensslCa(dir);
  let peerName: string;
  let peerNote: string;
  if (await ensureDebianPackage('cfssl', 'golang-cfssl')) {
    peerName = 'cfssl serve, /api/v1/cfssl/newcert';
    peerNote =
      'Peer: `cfssl serve` (its own P-256 CA made by openssl) and `POST /api/v1/cfssl/newcert` with a P-256 key request: key generation, CSR, signing, no persistence, no authentication.';
    const port = await startCfssl(dir);
    for (const concurrency of concurrencies) {
      const result = await runLoad({
        host: '127.0.0.1',
        port,
        concurrency,
        durationMs,
        warmupMs: WARMUP_MS,
        keepAlive: true,
        next: () => ({
          method: 'POST',
          path: '/api/v1/cfssl/newcert',
          headers: { 'Content-Type': 'application/json' },
          body: CFSSL_REQUEST,
        }),
      });
      rows.push(row(peerName, concurrency, result));
      log(rows[rows.length - 1]);
    }
  } else {
    peerName = 'openssl CLI, one `req | x509 -req` pipeline per certificate';
    peerNote =
      '**Peer not available:** `cfssl` is not on PATH, so the comparison is with the openssl CLI instead, which is not a service: `sh -c "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout … -subj … | openssl x509 -req -CA ca.pem -CAkey ca.key -days 365 -set_serial … -extfile openssl.cnf -extensions client -out …"` run back to back (in parallel pipelines for concurrency > 1): key generation, CSR, signing and two PEM files per certificate, with process start-up each time; no HTTP, no authentication, no database.';
    for (const concurrency of concurrencies) {
      const result = await opensslLoop(dir, concurrency, durationMs);
      rows.push(row(peerName, concurrency, result));
      log(rows[rows.length - 1]);
    }
  }

  // --- Floor for context: our pki lib alone, one at a time, in this process ---
  const floor = await pkiFloor(Math.min(durationMs, 3_000));
  rows.push(floor);
  log(floor);

  const ratioRows: string[][] = [];
  for (const description of descriptions) {
    for (const concurrency of concurrencies) {
      const ours = rows.find((r) => r.what === `ours, ${description}` && r.concurrency === concurrency)!;
      const peer = rows.find((r) => r.what === peerName && r.concurrency === concurrency);
      ratioRows.push([
        description,
        String(concurrency),
        int(ours.perSecond),
        `**${ratio(ours.perSecond, peer?.perSecond ?? NaN)}**`,
        ratio(ours.perSecond, floor.perSecond),
      ]);
    }
  }
  report(
    {
      title:
        'certificate issuance, `POST /v1/certificates` vs ' +
        (peerName.startsWith('cfssl') ? 'cfssl' : 'the openssl CLI'),
      command: '`npm run bench -- issuance` (`node -r @swc-node/register bench/issuance.ts`)',
      machine,
      settings: [
        `Ours: \`POST /v1/certificates\` (v1 body: clientId, CN, O, OU, C, validityDays 365, responseFormat Text) with a development-key ES256 token, one keep-alive connection per worker, closed loop, ${durationMs / 1000} s measured per cell after ${WARMUP_MS / 1000} s warm-up. Every call: JWT check, DTO validation, request/reply to issuance, P-256 key generation, certificate signing by the tenant CA, a database transaction (certificate row + outbox event), the private key returned as PEM. Systems: ${descriptions.join('; ')}. RATE_LIMIT_PER_MINUTE and DEFAULT_CERTIFICATE_LIMIT raised so that neither cuts the run short; LOG_LEVEL=info to a file.`,
        peerNote,
        'Floor, for context only: our pki lib alone in the benchmark process, one at a time: `generateLeafKeyPair`, `buildLeafCertificate` (the same profile and extensions), `exportPrivateKeyPem`, `derToPem`.',
      ],
      tables: [
        {
          headers: ['what', 'concurrency', 'certificates/s', 'p50', 'p99', 'errors'],
          rows: rows.map((r) => [
            r.what,
            String(r.concurrency),
            int(r.perSecond),
            ms(r.p50),
            ms(r.p99),
            r.errors,
          ]),
          align: ['left', 'right', 'right', 'right', 'right', 'right'],
        },
        {
          title: 'Ratios (certificates per second):',
          headers: [
            'ours on',
            'concurrency',
            'ours/s',
            `ours / ${peerName.startsWith('cfssl') ? 'cfssl' : 'openssl CLI'}`,
            'ours / pki lib alone (1 at a time)',
          ],
          rows: ratioRows,
        },
      ],
      notes: ['Ratios above 1 mean ours issues more per second.'],
    },
    record,
  );
}

async function issueThroughApi(
  system: RunningSystem,
  concurrency: number,
  durationMs: number,
): Promise<LoadResult> {
  const tenantId = randomUUID();
  const token = await system.token(tenantId);
  const api = adminApi(system, token);
  await initializeCa(system, api, tenantId);
  const body = Buffer.from(JSON.stringify(ISSUE_BODY));
  // The process's own background (pollers, timers): a quiet process is one back at this level.
  const idleMsPerSecond = await idleCpuMsPerSecond(system.pid);
  const cpuBefore = processCpuMs(system.pid);
  const mainBefore = mainThreadCpuMs(system.pid);
  const windowFrom = monotonicMicros();
  let sent = 0;
  const result = await runLoad({
    host: '127.0.0.1',
    port: Number(new URL(system.adminUrl).port),
    concurrency,
    durationMs,
    warmupMs: WARMUP_MS,
    keepAlive: true,
    next: () => {
      sent++;
      return {
        method: 'POST',
        path: '/v1/certificates',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body,
      };
    },
  });
  // CPU of the system's process per request, warm-up included and until the events it set off are
  // consumed: unlike the rate, hardly moved by other work on the machine (Postgres's own CPU is not in it).
  const cpuAfter = await cpuMsWhenQuiet(system.pid, 60_000, idleMsPerSecond);
  const mainAfter = mainThreadCpuMs(system.pid);
  const windowTo = monotonicMicros();
  if (cpuBefore !== undefined && cpuAfter !== undefined && sent > 0) {
    process.stdout.write(
      `  ${system.description}, c=${concurrency}: ${((cpuAfter - cpuBefore) / sent).toFixed(2)} ms of the system process's CPU per request (${sent} requests)\n`,
    );
  }
  // For bench/profiles/by-stage.js: the window on the clock of the profile's timestamps, the
  // certificates issued in it and the CPU /proc counted in it (the profile's samples are wall
  // time, which a machine busy with other work stretches).
  const cpuArgs =
    cpuBefore !== undefined && cpuAfter !== undefined && mainBefore !== undefined && mainAfter !== undefined
      ? ` --process-cpu-ms ${cpuAfter - cpuBefore} --main-cpu-ms ${mainAfter - mainBefore}`
      : '';
  process.stdout.write(
    `  profiled window (${system.description}, c=${concurrency}, warm-up and the events it set off included; idle ${int(idleMsPerSecond ?? NaN)} ms of CPU per s): --window ${windowFrom}-${windowTo} --issued ${result.okTotal}${cpuArgs}\n`,
  );
  return result;
}

async function opensslLoop(dir: string, concurrency: number, durationMs: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let serial = 1;
  const start = performance.now();
  const measureFrom = start + WARMUP_MS;
  const end = measureFrom + durationMs;
  const script =
    'openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" ' +
    '-subj "/C=US/O=Bench/OU=Performance/CN=bench.example.com" 2>/dev/null | ' +
    'openssl x509 -req -CA ca.pem -CAkey ca.key -days 365 -set_serial "$2" -extfile openssl.cnf -extensions client -out "$1.pem" 2>/dev/null';
  await mapPool(
    Array.from({ length: concurrency }, (_, i) => i),
    concurrency,
    async (worker) => {
      while (performance.now() < end) {
        const sent = performance.now();
        const result = await runCommand(
          'sh',
          ['-c', script, 'sh', `leaf-${worker}`, `0x${(serial++).toString(16)}`],
          { cwd: dir },
        );
        const done = performance.now();
        if (sent >= measureFrom && done <= end) {
          if (result.code === 0) latencies.push(done - sent);
          else errors++;
        }
      }
    },
  );
  return {
    ok: latencies.length,
    okTotal: latencies.length,
    errors,
    errorKinds: errors ? { 'non-zero exit': errors } : {},
    perSecond: latencies.length / (durationMs / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    reusedShare: 0,
  };
}

async function pkiFloor(durationMs: number): Promise<Row> {
  const caKeys = await pki.generateEcKeyPair(false);
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const caDer = await pki.buildCaCertificate(
    {
      subject: { commonName: 'Bench Root CA', organization: 'Bench', country: 'US' },
      notBefore: now,
      notAfter: new Date(now.getTime() + 3650 * 86_400_000),
      serialNumber: pki.randomSerialNumber(),
    },
    caKeys,
  );
  const base = 'http://127.0.0.1:3001/v1/tenants/00000000-0000-4000-8000-000000000001';
  const once = async () => {
    const keys = await pki.generateLeafKeyPair();
    const der = await pki.buildLeafCertificate(
      {
        subject: {
          country: 'US',
          organization: 'Bench',
          organizationalUnit: 'Performance',
          commonName: 'bench.example.com',
        },
        notBefore: now,
        notAfter: new Date(now.getTime() + 365 * 86_400_000),
        serialNumber: pki.randomSerialNumber(),
        extendedKeyUsages: ['clientAuth'],
        crlDistributionPointUrl: `${base}/crl`,
        ocspUrl: `${base}/ocsp`,
        caIssuersUrl: `${base}/ca.crt`,
      },
      keys.publicKey,
      { certificateDer: caDer, privateKey: caKeys.privateKey },
    );
    await pki.exportPrivateKeyPem(keys.privateKey);
    pki.derToPem(der);
  };
  for (let i = 0; i < 20; i++) await once(); // warm-up
  const latencies: number[] = [];
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    const t = performance.now();
    await once();
    latencies.push(performance.now() - t);
  }
  return {
    what: 'floor: our pki lib alone, in process',
    concurrency: 1,
    perSecond: latencies.length / (durationMs / 1000),
    p50: median(latencies),
    p99: percentile(latencies, 99),
    errors: '0',
  };
}

const CFSSL_REQUEST = Buffer.from(
  JSON.stringify({
    request: {
      CN: 'bench.example.com',
      key: { algo: 'ecdsa', size: 256 },
      names: [{ C: 'US', O: 'Bench', OU: 'Performance' }],
    },
    profile: 'client',
  }),
);

/** `cfssl serve` on the openssl-made CA (key converted to SEC1 PEM), a client profile. */
async function startCfssl(dir: string): Promise<number> {
  await mustRun('openssl', ['ec', '-in', 'ca.key', '-out', 'ca-ec.key'], { cwd: dir });
  writeFileSync(
    join(dir, 'cfssl.json'),
    JSON.stringify({
      signing: {
        default: { expiry: '8760h', usages: ['digital signature', 'client auth'] },
        profiles: { client: { expiry: '8760h', usages: ['digital signature', 'client auth'] } },
      },
    }),
  );
  const port = await freePort();
  const child = spawnGroup(
    'cfssl',
    [
      'serve',
      '-address',
      '127.0.0.1',
      '-port',
      String(port),
      '-ca',
      'ca.pem',
      '-ca-key',
      'ca-ec.key',
      '-config',
      'cfssl.json',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  onCleanup(() => stopGroup(child, 5_000));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await httpCall(`http://127.0.0.1:${port}/api/v1/cfssl/newcert`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: CFSSL_REQUEST,
    }).catch(() => undefined);
    if (answer?.status === 200) return port;
    if (Date.now() > deadline)
      throw new Error(`cfssl serve did not answer: ${answer?.status} ${answer?.body.toString()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The monotonic clock in µs: the clock of a `.cpuprofile`'s startTime and samples (V8's TimeTicks). */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function row(what: string, concurrency: number, result: LoadResult): Row {
  const kinds = Object.entries(result.errorKinds).map(([k, n]) => `${n} ${k}`);
  return {
    what,
    concurrency,
    perSecond: result.perSecond,
    p50: result.p50,
    p99: result.p99,
    errors: result.errors === 0 ? '0' : kinds.join(', '),
  };
}

function log(r: Row): void {
  process.stdout.write(
    `${r.what.padEnd(70)} c=${String(r.concurrency).padEnd(2)} ${int(r.perSecond).padStart(6)}/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  errors ${r.errors}\n`,
  );
}

runMain(main);
