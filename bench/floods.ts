/**
 * Floods against the system and what a normal client gets meanwhile: the answers/s of one OCSP
 * client and one admin API client (closed loop, keep-alive) alone and during each flood, and the
 * system's resident memory before, at its peak during, and after each flood. The floods are the
 * outsider attacks of tests/security (docs/security.md): bad tokens from one address, idle sockets
 * and slowloris connections on both ports, distinct 64-CertID OCSP requests, 65-CertID requests.
 *
 *   node -r @swc-node/register bench/floods.ts [--duration 5] [--quick] [--no-record]
 */
import { spawn } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Socket, connect } from 'node:net';
import { buildCertId, pemToDer } from '@ca/pki';
import { benchArgs, intOption } from './lib/args';
import { LoadResult, runLoad } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { mapPool } from '@ca/test-support';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import { adminApi, initializeCa, ISSUE_BODY, RunningSystem, startSystem } from './lib/system';
import { int, mib } from './lib/stats';

const USAGE = `bench/floods.ts: a normal client's answers/s and the system's memory, alone and during floods.
  --duration S   seconds measured per client and flood, after 0.5 s warm-up (default 5; --quick: 2)
  --quick        shorter
  --no-record    do not append to bench/history`;

const CERT_IDS = 64; // OCSP_MAX_CERTIDS, its default
const FLOOD_WORKERS = 16;
const IDLE_SOCKETS = 500;
const SLOWLORIS = 20;

interface Flood {
  name: string;
  /** Starts the flood; the returned function stops it and says how many requests it made. */
  start(): () => Promise<number>;
}

interface Row {
  flood: string;
  floodPerSecond: number;
  ocsp: LoadResult;
  admin: LoadResult;
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
}

/** Resident memory of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
}

/** DER TLV (X.690 8.1) with a definite length. */
function der(tag: number, ...parts: Uint8Array[]): Buffer {
  const content = Buffer.concat(parts);
  const octets: number[] = [];
  for (let n = content.length; n > 0; n >>= 8) octets.unshift(n & 0xff);
  const length = content.length < 0x80 ? [content.length] : [0x80 | octets.length, ...octets];
  return Buffer.concat([Buffer.of(tag, ...length), content]);
}

/** OCSPRequest (RFC 6960 4.1.1) with these CertIDs, no nonce. */
const ocspRequest = (certIds: Uint8Array[]) =>
  der(0x30, der(0x30, der(0x30, ...certIds.map((certId) => der(0x30, certId)))));

/** Sends requests from `workers` closed loops until stopped. */
function requestFlood(
  url: string,
  workers: number,
  next: () => { method: string; headers: Record<string, string>; body?: Buffer },
  localAddress?: string,
): () => Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: workers });
  let running = true;
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const { method, headers, body } = next();
      const req = request(url, { method, headers, agent, localAddress, timeout: 30_000 }, (res) => {
        res.resume();
        res.on('end', resolve);
        res.on('error', () => resolve());
      });
      req.on('error', () => setTimeout(resolve, 5));
      req.on('timeout', () => req.destroy());
      req.end(body);
      sent++;
    });
  const loops = Array.from({ length: workers }, async () => {
    while (running) await one();
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    agent.destroy();
    return sent;
  };
}

/** Keeps `count` connections open on each port (re-opened when the server cuts them). */
function socketFlood(urls: string[], count: number, slowloris: boolean): () => Promise<number> {
  let running = true;
  let opened = 0;
  const sockets = new Set<Socket>();
  const open = (url: string) => {
    if (!running) return;
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    opened++;
    sockets.add(socket);
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    socket.on('connect', () => {
      if (!slowloris) return;
      socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n');
      timer = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 300);
    });
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
      setTimeout(() => open(url), 50);
    });
  };
  for (const url of urls) for (let i = 0; i < count; i++) open(url);
  return async () => {
    running = false;
    for (const socket of sockets) socket.destroy();
    return opened;
  };
}

/** What a flood process needs to know of the system under test. */
interface FloodTarget {
  adminUrl: string;
  pkiUrl: string;
  ocspUrl: string;
  certIdsHex: string[];
}

const OCSP_HEADERS = { 'content-type': 'application/ocsp-request' };
const FLOOD_NAMES = [
  `bad tokens, one address, ${FLOOD_WORKERS} loops`,
  `${IDLE_SOCKETS} idle sockets per port`,
  `${SLOWLORIS} slowloris per port`,
  `distinct ≤64-CertID OCSP, ${FLOOD_WORKERS} loops`,
  `65-CertID OCSP, ${FLOOD_WORKERS} loops`,
];

/** Starts the named flood in this process; the returned function stops it. */
function startFlood(name: string, target: FloodTarget): () => Promise<number> {
  const certIds = target.certIdsHex.map((hex) => Buffer.from(hex, 'hex'));
  const distinct = () => {
    const shuffled = [...certIds];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    return ocspRequest(shuffled.slice(0, CERT_IDS - randomInt(8)));
  };
  const tooMany = ocspRequest([...certIds, certIds[0]]);
  switch (FLOOD_NAMES.indexOf(name)) {
    case 0:
      return requestFlood(
        `${target.adminUrl}/v1/certificates`,
        FLOOD_WORKERS,
        () => ({ method: 'GET', headers: { authorization: `Bearer bad.${randomUUID()}.token` } }),
        '127.0.0.5',
      );
    case 1:
      return socketFlood([target.adminUrl, target.pkiUrl], IDLE_SOCKETS, false);
    case 2:
      return socketFlood([target.adminUrl, target.pkiUrl], SLOWLORIS, true);
    case 3:
      return requestFlood(target.ocspUrl, FLOOD_WORKERS, () => ({
        method: 'POST',
        headers: OCSP_HEADERS,
        body: distinct(),
      }));
    case 4:
      return requestFlood(target.ocspUrl, FLOOD_WORKERS, () => ({
        method: 'POST',
        headers: OCSP_HEADERS,
        body: tooMany,
      }));
    default:
      throw new Error(`unknown flood ${name}`);
  }
}

/**
 * Runs the flood in a process of its own, so that it does not share an event loop (and a share of
 * the CPU given to it) with the normal clients measured here. Stopped by SIGTERM; it then prints
 * how many requests it made (sockets it opened).
 */
function floodInChild(name: string, target: FloodTarget): () => Promise<number> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', __filename], {
    env: { ...process.env, FLOOD_CHILD: JSON.stringify({ name, target }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return async () => {
    child.kill('SIGTERM');
    await exited;
    return Number(stdout.trim()) || 0;
  };
}

function runFloodChild(): void {
  const { name, target } = JSON.parse(process.env.FLOOD_CHILD!) as { name: string; target: FloodTarget };
  const stop = startFlood(name, target);
  process.once('SIGTERM', () => {
    void stop().then((count) => {
      process.stdout.write(`${count}\n`);
      process.exit(0);
    });
  });
}

/** One OCSP client, then one admin client, each a closed loop of one for `durationMs`. */
async function normalLoads(
  system: RunningSystem,
  ocspUrl: string,
  ocspBody: Buffer,
  token: string,
  durationMs: number,
): Promise<{ ocsp: LoadResult; admin: LoadResult }> {
  const ocsp = await runLoad({
    host: '127.0.0.1',
    port: Number(new URL(system.pkiUrl).port),
    next: () => ({ method: 'POST', path: new URL(ocspUrl).pathname, headers: OCSP_HEADERS, body: ocspBody }),
    concurrency: 1,
    durationMs,
    warmupMs: 500,
    keepAlive: true,
  });
  const admin = await runLoad({
    host: '127.0.0.1',
    port: Number(new URL(system.adminUrl).port),
    next: () => ({ method: 'GET', path: '/v1/certificates', headers: { authorization: `Bearer ${token}` } }),
    concurrency: 1,
    durationMs,
    warmupMs: 500,
    keepAlive: true,
  });
  return { ocsp, admin };
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, { duration: { type: 'string' } });
  const durationMs = intOption(values.duration, 'duration', quick ? 2 : 5) * 1000;
  const machine = machineInfo();

  process.stdout.write('starting the system (embedded)… ');
  const system: RunningSystem = await startSystem({
    mode: 'embedded',
    env: { LOG_LEVEL: 'warn', HTTP_HEADERS_TIMEOUT: '10' },
  });
  process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
  const tenantId = randomUUID();
  const token = await system.token(tenantId);
  const api = adminApi(system, token);
  const caDer = pemToDer(await initializeCa(system, api, tenantId));
  process.stdout.write(`issuing ${CERT_IDS} certificates… `);
  const serials = await mapPool(
    Array.from({ length: CERT_IDS }, (_, i) => i),
    4,
    async (i) => {
      const answer = await api.call('POST', '/v1/certificates', { ...ISSUE_BODY, clientId: `flood-${i}` });
      if (answer.status !== 200) throw new Error(`issue: ${answer.status} ${JSON.stringify(answer.json)}`);
      return answer.json.serialNumber as string;
    },
  );
  process.stdout.write('done\n');
  const certIds = serials.map(
    (serialNumberHex) =>
      buildCertId({ issuerCertificateDer: caDer, serialNumberHex, hashAlgorithm: 'sha1' }).der,
  );
  const ocspUrl = `${system.pkiUrl}/v1/tenants/${tenantId}/ocsp`;
  const normalOcsp = ocspRequest([certIds[0]]);
  const target: FloodTarget = {
    adminUrl: system.adminUrl,
    pkiUrl: system.pkiUrl,
    ocspUrl,
    certIdsHex: certIds.map((c) => Buffer.from(c).toString('hex')),
  };
  const floods: Flood[] = [
    { name: 'none (alone)', start: () => async () => 0 },
    ...FLOOD_NAMES.map((name) => ({ name, start: () => floodInChild(name, target) })),
  ];
  // Warm-up of both normal clients (JIT, caches, pools), so that "alone" is not a cold start.
  await normalLoads(system, ocspUrl, normalOcsp, token, 2_000);

  const rows: Row[] = [];
  for (const flood of floods) {
    process.stdout.write(`${flood.name}… `);
    const rssBefore = rssOf(system.pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(system.pid))), 100);
    const stop = flood.start();
    await new Promise((resolve) => setTimeout(resolve, 500)); // the flood under way
    const started = performance.now();
    const { ocsp, admin } = await normalLoads(system, ocspUrl, normalOcsp, token, durationMs);
    const floodSeconds = (performance.now() - started) / 1000;
    const sent = await stop();
    clearInterval(sampler);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssAfter = rssOf(system.pid);
    if (!system.alive()) throw new Error(`the system died during "${flood.name}":\n${system.logTail()}`);
    rows.push({
      flood: flood.name,
      floodPerSecond: sent / floodSeconds,
      ocsp,
      admin,
      rssBefore,
      rssPeak,
      rssAfter,
    });
    process.stdout.write(`OCSP ${ocsp.perSecond.toFixed(0)}/s, admin ${admin.perSecond.toFixed(0)}/s\n`);
  }
  await system.stop();

  const alone = rows[0];
  const share = (value: number, base: number) =>
    base > 0 ? `${((100 * value) / base).toFixed(0)} %` : 'n/a';
  report(
    {
      title: 'Floods: a normal client alone and during each flood (bench/floods.ts)',
      command: `npm run bench -- floods${quick ? ' --quick' : ''}`,
      machine,
      settings: [
        `System: ${system.description}, HTTP_HEADERS_TIMEOUT 10 s, other limits at their defaults (AUTH_FAILURE_LIMIT_PER_MINUTE 60, OCSP_MAX_CERTIDS 64, OCSP_CACHE_MAX_BYTES 64 MiB)`,
        `Normal clients: one closed loop each, keep-alive, measured one after the other for ${durationMs / 1000} s: OCSP POST of one CertID (a good serial); GET /v1/certificates with a valid token`,
        'Each flood runs in a Node process of its own on loopback; bad tokens from 127.0.0.5, the normal admin client from 127.0.0.1',
      ],
      tables: [
        {
          headers: [
            'flood',
            'flood req/s (or sockets opened/s)',
            'OCSP answers/s',
            'of alone',
            'OCSP errors',
            'admin answers/s',
            'of alone',
            'admin errors',
            'RSS before',
            'RSS peak',
            'RSS after',
          ],
          rows: rows.map((r) => [
            r.flood,
            int(r.floodPerSecond),
            int(r.ocsp.perSecond),
            share(r.ocsp.perSecond, alone.ocsp.perSecond),
            int(r.ocsp.errors),
            int(r.admin.perSecond),
            share(r.admin.perSecond, alone.admin.perSecond),
            int(r.admin.errors),
            mib(r.rssBefore),
            mib(r.rssPeak),
            mib(r.rssAfter),
          ]),
        },
      ],
      notes: [
        'One process holds all four services, so every flood also takes CPU from the normal clients; the share "of alone" is what is left to them.',
        'Memory is the system process only (VmRSS from /proc); the OCSP answer cache is bounded by OCSP_CACHE_MAX_BYTES, so RSS after a distinct-request flood stays bounded however long it runs.',
      ],
    },
    record,
  );
}

if (process.env.FLOOD_CHILD) runFloodChild();
else runMain(main);
