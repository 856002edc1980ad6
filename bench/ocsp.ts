/**
 * OCSP responder throughput and latency: our system's responder (embedded `npm start`), against
 * `openssl ocsp` as a responder over an index.txt of the same serials, and against a ceiling (a
 * bare Node `http` server answering a fixed 500-byte body). A closed-loop loader in this process.
 *
 * With `--workers N` (needs DATABASE_URL and NATS_URL) the system runs on a throwaway database and
 * NATS instead, and the responder also runs as `nx serve ocsp-responder` does, with
 * OCSP_RESPONDER_WORKERS=N, as a replica behind a port of its own (bench/lib/launch-responder.ts).
 *
 *   node -r @swc-node/register bench/ocsp.ts [--certs 1000] [--sample 200] [--duration 1] [--rounds 3]
 *     [--concurrency 1,8,64] [--workers 2] [--quick] [--no-record]
 */
import { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseOcspResponse } from '@ca/pki';
import { benchArgs, intListOption, intOption } from './lib/args';
import { freePort, httpCall, LoadRequest, LoadResult, waitFor200 } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { runSocketLoad } from './lib/socket-load';
import { processTreeCpuMs } from './lib/process-cpu';
import { indexTime, makeOpensslCa } from './lib/openssl-ca';
import { mapPool } from '@ca/test-support';
import { mustRun, onCleanup, onPath, runMain, spawnGroup, stopGroup, tempDir } from './lib/proc';
import { report, Table } from './lib/report';
import {
  adminApi,
  BENCH_SYSTEM_ENV,
  cleanEnv,
  initializeCa,
  ISSUE_BODY,
  RunningSystem,
  startSystem,
} from './lib/system';
import { int, median, ms, ratio } from './lib/stats';

const USAGE = `bench/ocsp.ts: our OCSP responder against openssl ocsp and a bare Node http server.
  --certs N          certificates issued through the admin API, 1% revoked (default 1000; --quick: 200)
  --sample N         distinct serials the load cycles through (default 200; --quick: 50)
  --duration S       seconds measured per cell and round, after 0.3 s warm-up (default 1)
  --rounds N         rounds over all targets, medians reported (default 3; --quick: 1)
  --concurrency L    closed-loop workers, comma-separated (default 1,8,64; --quick: 1,8)
  --cpu-prof DIR     run the system under \`node --cpu-prof\`, profiles written to DIR at its exit
  --workers N        also the responder as \`nx serve ocsp-responder\` runs it with OCSP_RESPONDER_WORKERS=N
                     (node:cluster), a replica on a port of its own; the system then runs on a throwaway
                     database of DATABASE_URL and on NATS_URL (both needed; without them this case is skipped)
  --quick            smaller and shorter
  --no-record        do not append to bench/history`;

const OCSP_REQUEST = { 'Content-Type': 'application/ocsp-request' };
const WARMUP_MS = 300;

interface Target {
  name: string;
  /** As shown in the table. */
  method: string;
  port: number;
  next: (i: number) => LoadRequest;
}

interface Cell {
  target: string;
  method: string;
  keepAlive: boolean;
  concurrency: number;
  result: LoadResult;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    certs: { type: 'string' },
    sample: { type: 'string' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
    concurrency: { type: 'string' },
    'cpu-prof': { type: 'string' },
    workers: { type: 'string' },
  });
  const certs = intOption(values.certs, 'certs', quick ? 200 : 1000);
  const sampleSize = Math.min(certs, intOption(values.sample, 'sample', quick ? 50 : 200));
  const durationMs = intOption(values.duration, 'duration', 1) * 1000;
  const rounds = intOption(values.rounds, 'rounds', quick ? 1 : 3);
  const concurrencies = intListOption(values.concurrency, 'concurrency', quick ? [1, 8] : [1, 8, 64]);
  let workers = values.workers === undefined ? 0 : intOption(values.workers, 'workers', 2);
  if (workers > 0 && !(process.env.DATABASE_URL && process.env.NATS_URL)) {
    process.stdout.write(
      `bench/ocsp.ts --workers: needs DATABASE_URL and NATS_URL (the responder in distributed mode); the ${workers}-worker case is skipped, the rest runs embedded\n`,
    );
    workers = 0;
  }
  if (!(await onPath('openssl')))
    throw new Error('this benchmark needs the openssl program (requests, peer)');
  const machine = machineInfo();
  const dir = tempDir('ocsp');

  // --- Our system: a CA, N certificates, 1% revoked ---
  process.stdout.write(`starting the system (${workers > 0 ? 'Postgres + NATS' : 'embedded'})… `);
  const profileDir = typeof values['cpu-prof'] === 'string' ? resolve(values['cpu-prof']) : undefined;
  // The responder run on its own must hold the same KEK as the system's (the signer keys are wrapped under it).
  const caKek = randomBytes(32).toString('base64');
  const system = await startSystem({
    mode: workers > 0 ? 'postgres' : 'embedded',
    env: workers > 0 ? { CA_KEK: caKek } : {},
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
  const tenantId = randomUUID();
  const api = adminApi(system, await system.token(tenantId));
  writeFileSync(join(dir, 'ca.pem'), await initializeCa(system, api, tenantId));

  process.stdout.write(`issuing ${int(certs)} certificates (8 at a time)… `);
  const issueStarted = performance.now();
  const issued = await mapPool(
    Array.from({ length: certs }, (_, i) => i),
    8,
    async (i) => {
      const answer = await api.call('POST', '/v1/certificates', { ...ISSUE_BODY, clientId: `ocsp-${i}` });
      if (answer.status !== 200) throw new Error(`issue: ${answer.status} ${JSON.stringify(answer.json)}`);
      return { id: answer.json.certificateId as string, serial: answer.json.serialNumber as string };
    },
  );
  const issueSeconds = (performance.now() - issueStarted) / 1000;
  process.stdout.write(`${(certs / issueSeconds).toFixed(0)}/s\n`);
  const revokedCount = Math.max(1, Math.round(certs / 100));
  const revoked = new Map<string, number>();
  for (const cert of issued.slice(0, revokedCount)) {
    const answer = await api.call('POST', `/v1/certificates/${cert.id}/revoke`, {
      reason: 'benchmark',
      reasonCode: 'KeyCompromise',
    });
    if (answer.status !== 200) throw new Error(`revoke: ${answer.status} ${JSON.stringify(answer.json)}`);
    revoked.set(cert.serial, Date.parse(answer.json.revokedAt as string));
  }
  // The sample: every revoked serial (up to a tenth of it), the rest good ones.
  const revokedInSample = Math.min(revokedCount, Math.max(1, Math.floor(sampleSize / 10)));
  const sample = [
    ...issued.slice(0, revokedInSample),
    ...issued.slice(revokedCount, revokedCount + sampleSize - revokedInSample),
  ].map((c) => c.serial);

  const clustered =
    workers > 0 ? await startClusteredResponder(system, caKek, workers, profileDir) : undefined;

  // --- The peer CA for openssl: the same serials, the same revocations ---
  const peerDir = join(dir, 'openssl');
  await mustRun('mkdir', ['-p', peerDir]);
  await makeOpensslCa(peerDir);
  const expiry = indexTime(Date.now() + 365 * 86_400_000);
  writeFileSync(
    join(peerDir, 'index.txt'),
    issued
      .map(({ serial }) => {
        const at = revoked.get(serial);
        return at === undefined
          ? `V\t${expiry}\t\t${serial}\tunknown\t/CN=x`
          : `R\t${expiry}\t${indexTime(at)},keyCompromise\t${serial}\tunknown\t/CN=x`;
      })
      .join('\n') + '\n',
  );
  writeFileSync(join(peerDir, 'index.txt.attr'), 'unique_subject = no\n');

  // --- Requests, made by `openssl ocsp -reqout` (SHA-1 CertID, as openssl sends by default) ---
  process.stdout.write(`building ${sample.length} x 3 requests with openssl ocsp -reqout… `);
  const makeRequest = async (issuer: string, serial: string, nonce: boolean) => {
    const out = join(dir, `req-${randomUUID()}.der`);
    const args = ['ocsp', '-issuer', issuer, '-serial', `0x${serial}`, '-reqout', out];
    await mustRun('openssl', nonce ? args : [...args, '-no_nonce']);
    return readFileSync(out);
  };
  const oursRequests = await mapPool(sample, 4, (s) => makeRequest(join(dir, 'ca.pem'), s, false));
  const oursNonceRequests = await mapPool(sample, 4, (s) => makeRequest(join(dir, 'ca.pem'), s, true));
  const peerRequests = await mapPool(sample, 4, (s) => makeRequest(join(peerDir, 'ca.pem'), s, false));
  process.stdout.write('done\n');

  // --- Peers: openssl ocsp (one process; and -multi), the ceiling ---
  const peerPort = await freePort();
  const peerMultiPort = await freePort();
  const cores = cpus().length;
  const openssl = superviseOpenssl(peerDir, peerPort, []);
  const opensslMulti = superviseOpenssl(peerDir, peerMultiPort, ['-multi', String(cores)]);
  const ceilingPort = await freePort();
  const ceiling = spawnGroup(process.execPath, ['-e', CEILING_SERVER], {
    env: { ...process.env, PORT: String(ceilingPort) },
    stdio: 'ignore',
  });
  onCleanup(() => stopGroup(ceiling));

  // --- Every answer checked before any load: statuses as expected, signatures openssl accepts ---
  const expectRevoked = sample.slice(0, revokedInSample);
  const oursPath = `/v1/tenants/${tenantId}/ocsp`;
  await waitUntil(async () => {
    const answer = await httpCall(`${system.pkiUrl}${oursPath}`, {
      method: 'POST',
      headers: OCSP_REQUEST,
      body: oursRequests[0],
    });
    return statusOf(answer.body) === 'revoked';
  }, 'our responder to report the first revoked serial');
  await waitUntil(
    async () =>
      (
        await httpCall(`http://127.0.0.1:${peerPort}/`, {
          method: 'POST',
          body: peerRequests[0],
          headers: OCSP_REQUEST,
        }).catch(() => undefined)
      )?.status === 200,
    'openssl ocsp to listen',
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${openssl.log()}`);
  });
  await waitUntil(
    async () =>
      (
        await httpCall(`http://127.0.0.1:${peerMultiPort}/`, {
          method: 'POST',
          body: peerRequests[0],
          headers: OCSP_REQUEST,
        }).catch(() => undefined)
      )?.status === 200,
    'openssl ocsp -multi to listen',
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${opensslMulti.log()}`);
  });
  // Revocations reach the responder through events (docs/api.md#propagation: within 5 s), so ours may need a retry.
  const check = async (label: string, url: string, requests: Buffer[]) => {
    const expected = requests.map((_, i) => (i < expectRevoked.length ? 'revoked' : 'good'));
    let statuses: string[] = [];
    const deadline = Date.now() + 15_000;
    for (;;) {
      statuses = await mapPool(requests, 4, async (body) =>
        statusOf((await httpCall(url, { method: 'POST', headers: OCSP_REQUEST, body })).body),
      );
      if (statuses.every((status, i) => status === expected[i])) return;
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const wrong = statuses.flatMap((status, i) =>
      status === expected[i] ? [] : [`${sample[i]}: ${status}`],
    );
    throw new Error(
      `${label}: expected ${expectRevoked.length} revoked and the rest good; wrong: ${wrong.join(', ')}`,
    );
  };
  await check('ours', `${system.pkiUrl}${oursPath}`, oursRequests);
  if (clustered) await check(`ours, ${workers} workers`, `${clustered.url}${oursPath}`, oursRequests);
  await check('openssl', `http://127.0.0.1:${peerPort}/`, peerRequests);
  const verified = await verifyWithOpenssl(
    dir,
    `${system.pkiUrl}${oursPath}`,
    oursNonceRequests[0],
    join(dir, 'ca.pem'),
  );

  // --- Targets ---
  const b64url = oursRequests.map((r) => r.toString('base64url'));
  const b64pct = peerRequests.map((r) => encodeURIComponent(r.toString('base64')));
  const pick = <T>(list: T[], i: number) => list[i % list.length];
  const targets: Record<string, Target> = {
    oursPost: {
      name: 'ours',
      method: 'POST',
      port: system.pkiPort,
      next: (i) => ({ method: 'POST', path: oursPath, headers: OCSP_REQUEST, body: pick(oursRequests, i) }),
    },
    oursGet: {
      name: 'ours',
      method: 'GET (base64url)',
      port: system.pkiPort,
      next: (i) => ({ method: 'GET', path: `${oursPath}/${pick(b64url, i)}` }),
    },
    oursNonce: {
      name: 'ours, nonce (signs every answer)',
      method: 'POST',
      port: system.pkiPort,
      next: (i) => ({
        method: 'POST',
        path: oursPath,
        headers: OCSP_REQUEST,
        body: pick(oursNonceRequests, i),
      }),
    },
    oursWorkers: {
      name: `ours, ${workers} workers`,
      method: 'POST',
      port: clustered?.port ?? 0,
      next: (i) => ({ method: 'POST', path: oursPath, headers: OCSP_REQUEST, body: pick(oursRequests, i) }),
    },
    opensslPost: {
      name: 'openssl ocsp',
      method: 'POST',
      port: peerPort,
      next: (i) => ({ method: 'POST', path: '/', headers: OCSP_REQUEST, body: pick(peerRequests, i) }),
    },
    opensslGet: {
      name: 'openssl ocsp',
      method: 'GET (base64, %-encoded)',
      port: peerPort,
      next: (i) => ({ method: 'GET', path: `/${pick(b64pct, i)}` }),
    },
    opensslMulti: {
      name: `openssl ocsp -multi ${cores}`,
      method: 'POST',
      port: peerMultiPort,
      next: (i) => ({ method: 'POST', path: '/', headers: OCSP_REQUEST, body: pick(peerRequests, i) }),
    },
    ceiling: {
      name: 'ceiling: Node http, fixed 500 B',
      method: 'POST',
      port: ceilingPort,
      next: (i) => ({ method: 'POST', path: '/', headers: OCSP_REQUEST, body: pick(oursRequests, i) }),
    },
  };
  const withWorkers = (keys: Array<keyof typeof targets>) =>
    clustered ? [...keys.slice(0, 1), 'oursWorkers' as const, ...keys.slice(1)] : keys;
  const plan: Array<{ keepAlive: boolean; targets: Array<keyof typeof targets> }> = [
    { keepAlive: true, targets: withWorkers(['oursPost', 'oursGet', 'oursNonce', 'opensslPost', 'ceiling']) },
    {
      keepAlive: false,
      targets: withWorkers(['oursPost', 'oursGet', 'opensslPost', 'opensslGet', 'opensslMulti', 'ceiling']),
    },
  ];

  // With --workers: the cores the responders and this loader used during the POST cells.
  const cpuWatched: Partial<Record<keyof typeof targets, number>> = clustered
    ? { oursPost: system.pid, oursWorkers: clustered.pid }
    : {};
  const cpuShares: Record<string, { server: number[]; loader: number[] }> = {};
  const cpuNow = (pid: number) => ({
    wall: performance.now(),
    server: processTreeCpuMs(pid) ?? NaN,
    loader: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  });

  // Rounds: every target of a (connections, concurrency) group in turn, then again, so that a
  // change in the machine's load hits all of them alike; each cell reports medians over rounds.
  const cells: Cell[] = [];
  for (const { keepAlive, targets: keys } of plan) {
    for (const concurrency of concurrencies) {
      const perRound = new Map<string, LoadResult[]>(keys.map((key) => [key, []]));
      for (let round = 0; round < rounds; round++) {
        for (const key of keys) {
          const target = targets[key];
          const serverPid = clustered && cpuWatched[key];
          const started = serverPid ? cpuNow(serverPid) : undefined;
          perRound.get(key)!.push(
            await runSocketLoad({
              host: '127.0.0.1',
              port: target.port,
              next: target.next,
              concurrency,
              durationMs,
              warmupMs: WARMUP_MS,
              keepAlive,
            }),
          );
          if (serverPid && started) {
            const ended = cpuNow(serverPid);
            const wallMs = ended.wall - started.wall;
            const shares = (cpuShares[`${key} ${keepAlive} ${concurrency}`] ??= { server: [], loader: [] });
            shares.server.push((ended.server - started.server) / wallMs);
            shares.loader.push((ended.loader - started.loader) / wallMs);
          }
        }
      }
      for (const key of keys) {
        const target = targets[key];
        const result = medianResult(perRound.get(key)!);
        cells.push({ target: target.name, method: target.method, keepAlive, concurrency, result });
        process.stdout.write(
          `${keepAlive ? 'keep-alive' : 'fresh     '} c=${String(concurrency).padEnd(3)} ${`${target.name} ${target.method}`.padEnd(46)} ` +
            `${int(result.perSecond).padStart(7)}/s  p50 ${ms(result.p50)}  p99 ${ms(result.p99)}  errors ${result.errors}` +
            `  (rounds: ${perRound
              .get(key)!
              .map((r) => int(r.perSecond))
              .join(', ')})\n`,
        );
      }
    }
  }

  const find = (name: string, method: string, keepAlive: boolean, c: number) =>
    cells.find(
      (x) => x.target === name && x.method === method && x.keepAlive === keepAlive && x.concurrency === c,
    )?.result.perSecond ?? NaN;
  const resultRows = cells.map((cell) => [
    cell.target,
    cell.method,
    cell.keepAlive ? 'keep-alive' : 'new per request',
    String(cell.concurrency),
    int(cell.result.perSecond),
    ms(cell.result.p50),
    ms(cell.result.p99),
    `${Math.round(cell.result.reusedShare * 100)}%`,
    cell.result.errors === 0
      ? '0'
      : `${cell.result.errors} (${Object.keys(cell.result.errorKinds).join(', ')})`,
  ]);
  const ratioRows: string[][] = [];
  for (const keepAlive of [true, false]) {
    for (const c of concurrencies) {
      const oursPost = find('ours', 'POST', keepAlive, c);
      const peer = find('openssl ocsp', 'POST', keepAlive, c);
      const multi = find(`openssl ocsp -multi ${cores}`, 'POST', false, c);
      const top = find('ceiling: Node http, fixed 500 B', 'POST', keepAlive, c);
      const nonce = find('ours, nonce (signs every answer)', 'POST', keepAlive, c);
      ratioRows.push([
        keepAlive ? 'keep-alive' : 'new per request',
        String(c),
        int(oursPost),
        `**${ratio(oursPost, peer)}**`,
        ratio(oursPost, multi),
        `**${ratio(oursPost, top)}**`,
        keepAlive ? ratio(nonce, peer) : 'n/a',
      ]);
    }
  }
  const restarts = openssl.restarts() + opensslMulti.restarts();
  // The targets (docs/benchmarks.md), at fresh connections and 8 concurrent (or the nearest concurrency measured).
  const targetC = concurrencies.includes(8) ? 8 : concurrencies[concurrencies.length - 1];
  const oursFresh = cells.find(
    (x) => x.target === 'ours' && x.method === 'POST' && !x.keepAlive && x.concurrency === targetC,
  )?.result;
  const vsOpenssl = find('ours', 'POST', false, targetC) / find('openssl ocsp', 'POST', false, targetC);
  const vsCeiling =
    find('ours', 'POST', false, targetC) / find('ceiling: Node http, fixed 500 B', 'POST', false, targetC);
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const targetNote =
    `Targets, POST, new connection per request, concurrency ${targetC}: ` +
    `>= 1.5x openssl ocsp: ${vsOpenssl.toFixed(2)}x, ${verdict(vsOpenssl >= 1.5)}; ` +
    `p99 < 5 ms: ${oursFresh ? ms(oursFresh.p99) : 'n/a'}, ${verdict((oursFresh?.p99 ?? Infinity) < 5)}; ` +
    `>= 70% of the Node static ceiling: ${Math.round(vsCeiling * 100)}%, ${verdict(vsCeiling >= 0.7)}.`;
  const workersName = `ours, ${workers} workers`;
  const workersRows = [true, false].flatMap((keepAlive) =>
    concurrencies.map((c) => {
      const cell = cells.find(
        (x) => x.target === workersName && x.keepAlive === keepAlive && x.concurrency === c,
      )?.result;
      const perSecond = cell?.perSecond ?? NaN;
      return [
        keepAlive ? 'keep-alive' : 'new per request',
        String(c),
        int(perSecond),
        cell ? ms(cell.p99) : 'n/a',
        `**${ratio(perSecond, find('openssl ocsp', 'POST', keepAlive, c))}**`,
        keepAlive ? 'n/a' : ratio(perSecond, find(`openssl ocsp -multi ${cores}`, 'POST', false, c)),
        ratio(perSecond, find('ours', 'POST', keepAlive, c)),
      ];
    }),
  );
  const workersFresh = cells.find(
    (x) => x.target === workersName && !x.keepAlive && x.concurrency === targetC,
  )?.result;
  const workersVsOpenssl =
    find(workersName, 'POST', false, targetC) / find('openssl ocsp', 'POST', false, targetC);
  const workersNote = clustered
    ? `Targets, ${workers} workers, POST, new connection per request, concurrency ${targetC}: ` +
      `>= 1.5x openssl ocsp: ${workersVsOpenssl.toFixed(2)}x, ${verdict(workersVsOpenssl >= 1.5)}; ` +
      `p99 < 5 ms: ${workersFresh ? ms(workersFresh.p99) : 'n/a'}, ${verdict((workersFresh?.p99 ?? Infinity) < 5)}; ` +
      `keep-alive >= 3x openssl: ${(find(workersName, 'POST', true, targetC) / find('openssl ocsp', 'POST', true, targetC)).toFixed(2)}x.`
    : undefined;
  const tables: Table[] = [
    {
      title: 'Throughput and latency per cell (answers per second in the measured window):',
      headers: [
        'responder',
        'request',
        'connections',
        'concurrency',
        'answers/s',
        'p50',
        'p99',
        'reused conn.',
        'errors',
      ],
      rows: resultRows,
      align: ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'],
    },
    {
      title: 'Ratios (answers/s, ours POST divided by the peer in the same connection mode and concurrency):',
      headers: [
        'connections',
        'concurrency',
        'ours POST/s',
        'ours / openssl ocsp',
        `ours / openssl -multi ${cores} (new conn.)`,
        'ours / ceiling',
        'ours with nonce / openssl',
      ],
      rows: ratioRows,
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    },
    ...(clustered
      ? [
          {
            title: `The responder on ${workers} workers (\`nx serve ocsp-responder\`, OCSP_RESPONDER_WORKERS=${workers}), POST:`,
            headers: [
              'connections',
              'concurrency',
              'answers/s',
              'p99',
              'workers / openssl ocsp',
              `workers / openssl -multi ${cores}`,
              'workers / ours one process',
            ],
            rows: workersRows,
            align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'] as Table['align'],
          },
          {
            title:
              'Cores used during the POST cells (CPU time over the cell\'s wall time, medians over rounds; "ours" is the whole system process):',
            headers: ['responder', 'connections', 'concurrency', 'responder cores', 'loader cores'],
            rows: Object.entries(cpuShares).map(([cell, shares]) => {
              const [key, keepAlive, c] = cell.split(' ');
              return [
                targets[key as keyof typeof targets].name,
                keepAlive === 'true' ? 'keep-alive' : 'new per request',
                c,
                median(shares.server).toFixed(2),
                median(shares.loader).toFixed(2),
              ];
            }),
            align: ['left', 'left', 'right', 'right', 'right'] as Table['align'],
          },
        ]
      : []),
  ];
  report(
    {
      title: 'OCSP responder, ours vs `openssl ocsp` vs a bare Node http server',
      command: clustered
        ? `\`DATABASE_URL=… NATS_URL=… npm run bench -- ocsp ${process.argv.slice(2).join(' ')}\` (\`node -r @swc-node/register bench/ocsp.ts\`)`
        : '`npm run bench -- ocsp` (`node -r @swc-node/register bench/ocsp.ts`)',
      machine,
      settings: [
        `Ours: ${clustered ? `the system's services in one process (\`bench/lib/launch-system.ts\`, what \`npm start\` runs) on ${system.description}` : '`npm start` embedded (PGlite, in-process transport'}; LOG_LEVEL=info, logs to a file), one tenant CA, ${int(certs)} certificates issued through the admin API (${(certs / issueSeconds).toFixed(0)}/s at 8 concurrent, a side result), ${revokedCount} of them revoked (KeyCompromise); answers signed by the delegated OCSP signer.`,
        `Load: a closed-loop loader in the benchmark process on raw TCP sockets (\`bench/lib/socket-load.ts\`: each request's bytes made once, answers read up to status, Content-Length and body; Node's \`http.request\` cost as much CPU per request as the servers measured), cycling through ${sample.length} distinct serials (${revokedInSample} revoked), one CertID per request (SHA-1, made by \`openssl ocsp -issuer … -serial … -reqout … -no_nonce\`); ${rounds} round(s) over all targets of a connection mode and concurrency in turn, each cell ${durationMs / 1000} s measured after ${WARMUP_MS / 1000} s warm-up per round, medians over the rounds reported; keep-alive = one connection per worker, reused while the server keeps it open; new per request = a fresh TCP connection with \`Connection: close\`. Loader, responder and peers share the ${cores} cores.`,
        `Our responder reuses a signed answer for the same request and status until shortly before its nextUpdate (RFC 5019), so with ${sample.length} distinct requests the POST/GET rows mostly serve cached answers; the "nonce" row sends requests with a nonce, which are never cached: every answer is parsed, looked up and signed.`,
        `Peer: \`openssl ocsp -index index.txt -port … -rsigner ca.pem -rkey ca.key -CA ca.pem -ignore_err\` (its own P-256 CA, index.txt with the same ${int(certs)} serials, the same revocations); it speaks HTTP/1.0, closes every connection, answers one request at a time and signs every answer (no cache). \`-multi ${cores}\` forks ${cores} responder processes. Responder restarts during the run: ${restarts}.`,
        ...(clustered
          ? [
              `Ours, ${workers} workers: the responder as \`nx serve ocsp-responder\` runs it (runService, \`bench/lib/launch-responder.ts\` for the benchmark's stream names) with OCSP_RESPONDER_WORKERS=${workers}: a node:cluster primary and ${workers} workers sharing one port (each worker accepts on the shared listening socket, the kernel chooses which; NODE_CLUSTER_SCHED_POLICY ${process.env.NODE_CLUSTER_SCHED_POLICY ?? 'unset'}), each a replica of the system's responder on the same database and NATS. "ours" above is then the system's own responder, one process on the same database and NATS.`,
            ]
          : []),
        'Ceiling: a Node `http` server in its own process answering every request with a fixed 500-byte body (about the size of an OCSP answer): what HTTP on Node and this loader can do on this machine.',
        `Checked before the load: every sampled serial answers good/revoked as expected from both responders; our answer ${verified}.`,
      ],
      tables,
      notes: [
        'Ratios above 1 mean ours answers more per second.',
        targetNote,
        ...(workersNote ? [workersNote] : []),
      ],
    },
    record,
  );
}

/**
 * The responder as `nx serve ocsp-responder` runs it, with `workers` workers, on the system's
 * database, NATS stream and KEK; resolves once its /health/ready answers 200.
 */
async function startClusteredResponder(
  system: RunningSystem,
  caKek: string,
  workers: number,
  /** --cpu-prof: every worker (and the primary) writes its profile there at its exit. */
  profileDir?: string,
): Promise<{ url: string; port: number; pid: number }> {
  if (!system.databaseUrl || !system.nats)
    throw new Error('the workers case needs the system on Postgres + NATS');
  const port = await freePort();
  const log = join(system.dataDir, 'responder-workers.log');
  process.stdout.write(`starting the responder with ${workers} workers… `);
  const fd = openSync(log, 'a');
  const child = spawnGroup(
    process.execPath,
    [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      '-r',
      '@swc-node/register',
      'bench/lib/launch-responder.ts',
    ],
    {
      cwd: resolve(__dirname, '..'),
      env: {
        ...cleanEnv(),
        ...BENCH_SYSTEM_ENV,
        HOST: '127.0.0.1',
        PKI_PORT: String(port),
        DATABASE_URL: system.databaseUrl,
        NATS_URL: system.nats.url,
        BENCH_STREAM_ID: system.nats.streamId,
        CA_KEK: caKek,
        DATA_DIR: join(system.dataDir, 'responder-workers'),
        OCSP_RESPONDER_WORKERS: String(workers),
      },
      stdio: ['ignore', fd, fd],
    },
  );
  closeSync(fd);
  onCleanup(() => stopGroup(child, 20_000));
  const started = performance.now();
  await waitFor200(`http://127.0.0.1:${port}/health/ready`, 120_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${readFileSync(log, 'utf8').split('\n').slice(-20).join('\n')}`);
  });
  process.stdout.write(`ready in ${int(performance.now() - started)} ms\n`);
  return { url: `http://127.0.0.1:${port}`, port, pid: child.pid! };
}

/** Medians over rounds (throughput, p50, p99); errors and error kinds summed. */
function medianResult(results: LoadResult[]): LoadResult {
  const errorKinds: Record<string, number> = {};
  for (const r of results)
    for (const [k, n] of Object.entries(r.errorKinds)) errorKinds[k] = (errorKinds[k] ?? 0) + n;
  return {
    ok: results.reduce((total, r) => total + r.ok, 0),
    okTotal: results.reduce((total, r) => total + r.okTotal, 0),
    errors: results.reduce((total, r) => total + r.errors, 0),
    errorKinds,
    perSecond: median(results.map((r) => r.perSecond)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    reusedShare: median(results.map((r) => r.reusedShare)),
  };
}

/** A Node http server that answers every request with the same 500 bytes (reads the body first). */
const CEILING_SERVER = `
const body = Buffer.alloc(500, 0x61);
require('http').createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/ocsp-response', 'Content-Length': 500 }); res.end(body); });
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** `openssl ocsp` as a responder, restarted if it ever exits; stopped at clean-up. */
function superviseOpenssl(
  dir: string,
  port: number,
  extra: string[],
): { restarts: () => number; log: () => string } {
  let child: ChildProcess | undefined;
  let restarts = 0;
  let stopping = false;
  const log = join(dir, `ocsp-${port}.log`);
  const start = () => {
    const fd = openSync(log, 'a');
    child = spawnGroup(
      'openssl',
      [
        'ocsp',
        '-index',
        'index.txt',
        '-port',
        String(port),
        '-rsigner',
        'ca.pem',
        '-rkey',
        'ca.key',
        '-CA',
        'ca.pem',
      ].concat(['-ignore_err'], extra),
      { cwd: dir, stdio: ['ignore', fd, fd] },
      extra.includes('-multi'),
    );
    closeSync(fd);
    child.once('exit', () => {
      if (stopping) return;
      restarts++;
      setTimeout(start, 100);
    });
  };
  start();
  onCleanup(async () => {
    stopping = true;
    if (child) await stopGroup(child, 2_000);
  });
  return { restarts: () => restarts, log: () => readFileSync(log, 'utf8').split('\n').slice(-20).join('\n') };
}

function statusOf(der: Buffer): string {
  try {
    const info = parseOcspResponse(new Uint8Array(der));
    if (info.responseStatus !== 'successful') return info.responseStatus;
    return info.responses.map((r) => r.status.kind).join(',');
  } catch (error) {
    return `unparseable: ${(error as Error).message}`;
  }
}

/** `openssl ocsp -reqin … -url …` against our responder: checks signature, responder chain and nonce. */
async function verifyWithOpenssl(dir: string, url: string, request: Buffer, caPem: string): Promise<string> {
  const reqFile = join(dir, 'verify-req.der');
  writeFileSync(reqFile, request);
  const result = await mustRun('openssl', [
    'ocsp',
    '-reqin',
    reqFile,
    '-url',
    url,
    '-CAfile',
    caPem,
    '-resp_text',
  ]).catch((error: Error) => ({ stdout: '', stderr: error.message }));
  const ok = /Response verify OK/.test(result.stderr + result.stdout);
  return ok
    ? 'passes `openssl ocsp -reqin … -url … -CAfile ca.pem` (signature, delegated signer, nonce)'
    : 'FAILED openssl verification';
}

async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

runMain(main);
