/**
 * Connection exhaustion at both HTTP ports and what a legitimate relying party gets meanwhile:
 * one OCSP client (a new connection per request, as `openssl ocsp` and most relying parties do)
 * and one admin API client, each sending one request every 100 ms, with their success rate and
 * latency, alone and during each flood. The floods: 1,030 kept-alive sockets per port each
 * sending a cheap request every 3 s, and 1,100 reconnecting slowloris sockets per port, each from
 * one address and spread over 16 addresses (past HTTP_MAX_CONNECTIONS, which only the reclaim of
 * idle connections answers). The system runs with the default per-client limits.
 *
 *   node -r @swc-node/register bench/exhaustion.ts [--duration 10] [--quick] [--no-record]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { Socket, connect } from 'node:net';
import { buildCertId, pemToDer } from '@ca/pki';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import { adminApi, initializeCa, ISSUE_BODY, RunningSystem, startSystem } from './lib/system';
import { ms, percentile } from './lib/stats';

const USAGE = `bench/exhaustion.ts: a legitimate client's success and latency during connection floods.
  --duration S   seconds measured per flood (default 10; --quick: 4)
  --quick        shorter
  --no-record    do not append to bench/history`;

const KEPT_ALIVE = 1_030;
const SLOWLORIS = 1_100;
const ADDRESSES = 16;
const CLIENT_EVERY_MS = 100;
const CLIENT_TIMEOUT_MS = 5_000;

interface Flood {
  name: string;
  kind: 'kept-alive' | 'slowloris';
  addresses: number;
}

const FLOODS: Flood[] = [
  {
    name: `${KEPT_ALIVE} kept-alive sockets per port, a request every 3 s, one address`,
    kind: 'kept-alive',
    addresses: 1,
  },
  {
    name: `${KEPT_ALIVE} kept-alive sockets per port, ${ADDRESSES} addresses`,
    kind: 'kept-alive',
    addresses: ADDRESSES,
  },
  { name: `${SLOWLORIS} slowloris per port, reconnecting, one address`, kind: 'slowloris', addresses: 1 },
  {
    name: `${SLOWLORIS} slowloris per port, ${ADDRESSES} addresses`,
    kind: 'slowloris',
    addresses: ADDRESSES,
  },
];

/** Loopback source addresses standing for other machines (never 127.0.0.1, the legitimate client's). */
const floodAddress = (i: number, of: number) => `127.0.3.${1 + (i % of)}`;

/**
 * Keeps `count` sockets open on each port, re-opened when cut; the flood's own process. Says
 * "ready" once the server holds all it will take (the per-client and server limits): the sockets
 * open for over half a second stop growing. A server on a loaded machine takes seconds to accept
 * two thousand connections; the measurement is of the flood in place, not of its first seconds.
 */
function startFlood(urls: string[], count: number, flood: Flood): void {
  const openedAt = new Map<Socket, number>();
  const open = (url: string, i: number) => {
    const { hostname, port } = new URL(url);
    const socket = connect({
      port: Number(port),
      host: hostname,
      localAddress: floodAddress(i, flood.addresses),
    });
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    socket.on('connect', () => {
      openedAt.set(socket, Date.now());
      if (flood.kind === 'slowloris') {
        socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n');
        timer = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 300);
      } else {
        const cheap = () => socket.writable && socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
        cheap();
        timer = setInterval(cheap, 3_000);
      }
    });
    socket.on('close', () => {
      clearInterval(timer);
      openedAt.delete(socket);
      setTimeout(() => open(url, i), 50);
    });
  };
  // Opened 100 at a time (a steady flood, not a SYN burst, which the kernel's listen queue meets
  // before any code of ours).
  const all = urls.flatMap((url) => Array.from({ length: count }, (_, i) => [url, i] as const));
  const batch = (from: number) => {
    for (const [url, i] of all.slice(from, from + 100)) open(url, i);
    if (from + 100 < all.length) setTimeout(() => batch(from + 100), 20);
  };
  batch(0);
  let best = 0;
  let since = Date.now();
  const started = Date.now();
  const settle = setInterval(() => {
    const now = Date.now();
    const held = [...openedAt.values()].filter((at) => now - at > 500).length;
    if (held > best * 1.01) [best, since] = [held, now];
    if ((best > 0 && now - since > 3_000) || now - started > 60_000) {
      clearInterval(settle);
      process.stdout.write(`ready ${held}\n`);
    }
  }, 250);
}

function floodInChild(flood: Flood, urls: string[]): { ready: Promise<number>; stop: () => Promise<void> } {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', __filename], {
    env: { ...process.env, EXHAUSTION_CHILD: JSON.stringify({ flood, urls }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<number>((resolve) =>
    child.stdout.once('data', (line: Buffer) => resolve(Number(/ready (\d+)/.exec(String(line))?.[1] ?? 0))),
  );
  return {
    ready,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

interface ClientSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  bodyHex?: string;
}

/**
 * The legitimate clients run in a process of their own, as a relying party on another machine
 * would: not on the event loop of the benchmark, which also drives the flood process.
 */
function clientsInChild(specs: ClientSpec[], durationMs: number): Promise<ClientResult[]> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', __filename], {
    env: { ...process.env, EXHAUSTION_CLIENTS: JSON.stringify({ specs, durationMs }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout) as ClientResult[])
        : reject(new Error(`clients exited ${code}`)),
    ),
  );
}

interface ClientResult {
  sent: number;
  ok: number;
  latencies: number[];
  failures: Record<string, number>;
}

/** One request every CLIENT_EVERY_MS on a new connection, for `durationMs`; success is 200. */
async function legitimateClient(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: Buffer },
  durationMs: number,
): Promise<ClientResult> {
  const result: ClientResult = { sent: 0, ok: 0, latencies: [], failures: {} };
  const failed = (kind: string) => (result.failures[kind] = (result.failures[kind] ?? 0) + 1);
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(url, { ...options, agent: false, timeout: CLIENT_TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) {
            result.ok++;
            result.latencies.push(performance.now() - started);
          } else failed(String(res.statusCode));
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        failed(error.code ?? 'error');
        resolve();
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
      req.end(options.body);
    });
  const pending: Promise<void>[] = [];
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    result.sent++;
    pending.push(one());
    await new Promise((resolve) => setTimeout(resolve, CLIENT_EVERY_MS));
  }
  await Promise.all(pending);
  return result;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, { duration: { type: 'string' } });
  const durationMs = intOption(values.duration, 'duration', quick ? 4 : 10) * 1000;
  const machine = machineInfo();
  process.stdout.write('starting the system (embedded, default per-client limits)… ');
  const system: RunningSystem = await startSystem({
    mode: 'embedded',
    env: {
      LOG_LEVEL: 'warn',
      HTTP_MAX_CONNECTIONS_PER_CLIENT: '64',
      HTTP_CLIENT_REQUESTS_PER_SECOND: '1000',
    },
  });
  process.stdout.write('ready\n');
  const tenantId = randomUUID();
  const token = await system.token(tenantId);
  const api = adminApi(system, token);
  const caDer = pemToDer(await initializeCa(system, api, tenantId));
  const issued = await api.call('POST', '/v1/certificates', { ...ISSUE_BODY, clientId: 'exhaustion' });
  if (issued.status !== 200) throw new Error(`issue: ${issued.status}`);
  const certId = buildCertId({
    issuerCertificateDer: caDer,
    serialNumberHex: issued.json.serialNumber as string,
    hashAlgorithm: 'sha1',
  }).der;
  const der = (tag: number, content: Buffer) => Buffer.concat([Buffer.of(tag, content.length), content]);
  const ocspBody = der(0x30, der(0x30, der(0x30, der(0x30, Buffer.from(certId)))));
  const spec: ClientSpec[] = [
    {
      url: `${system.pkiUrl}/v1/tenants/${tenantId}/ocsp`,
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      bodyHex: ocspBody.toString('hex'),
    },
    {
      url: `${system.adminUrl}/v1/certificates`,
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
    },
  ];
  const clients = (duration: number) => clientsInChild(spec, duration);
  await clients(2_000); // warm-up

  const rows: string[][] = [];
  const row = (name: string, [ocsp, admin]: ClientResult[]) => {
    const cells = (r: ClientResult) => [
      `${r.ok}/${r.sent} (${((100 * r.ok) / Math.max(1, r.sent)).toFixed(1)} %)`,
      ms(percentile(r.latencies, 50)),
      ms(percentile(r.latencies, 99)),
      Object.entries(r.failures)
        .map(([kind, n]) => `${n} ${kind}`)
        .join(', ') || 'none',
    ];
    rows.push([name, ...cells(ocsp), ...cells(admin)]);
    process.stdout.write(`${name}: OCSP ${rows.at(-1)![1]}, admin ${rows.at(-1)![5]}\n`);
  };
  row('none (alone)', await clients(durationMs));
  for (const flood of FLOODS) {
    const { ready, stop } = floodInChild(flood, [system.adminUrl, system.pkiUrl]);
    const held = await ready;
    const results = await clients(durationMs);
    await stop();
    if (!system.alive()) throw new Error(`the system died during "${flood.name}":\n${system.logTail()}`);
    row(`${flood.name} (${held} held)`, results);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  await system.stop();

  report(
    {
      title: 'Connection exhaustion: a legitimate client during each flood (bench/exhaustion.ts)',
      command: `npm run bench -- exhaustion${quick ? ' --quick' : ''}`,
      machine,
      settings: [
        `System: ${system.description}; HTTP_MAX_CONNECTIONS 1024, HTTP_MAX_CONNECTIONS_PER_CLIENT 64, HTTP_CLIENT_REQUESTS_PER_SECOND 1000, HTTP_HEADERS_TIMEOUT 10 s, HTTP_KEEPALIVE_TIMEOUT 5 s (the defaults)`,
        `Legitimate clients from 127.0.0.1: one request every ${CLIENT_EVERY_MS} ms for ${durationMs / 1000} s, each on a new connection, ${CLIENT_TIMEOUT_MS / 1000} s timeout: OCSP POST of one CertID; GET /v1/certificates with a valid token`,
        'Each flood runs in a Node process of its own on loopback, from 127.0.3.x, on both ports at once; its sockets are opened 100 at a time (a steady flood, not a SYN burst) and the measurement starts once the sockets the server holds stop growing for 3 s ("held": the flood sockets open for over 0.5 s then, both ports)',
      ],
      tables: [
        {
          headers: [
            'flood',
            'OCSP ok',
            'OCSP p50',
            'OCSP p99',
            'OCSP failures',
            'admin ok',
            'admin p50',
            'admin p99',
            'admin failures',
          ],
          rows,
        },
      ],
      notes: [
        'Success is a 200 within the timeout; latency is of the successful requests, connection set-up included.',
      ],
    },
    record,
  );
}

if (process.env.EXHAUSTION_CLIENTS) {
  const { specs, durationMs } = JSON.parse(process.env.EXHAUSTION_CLIENTS) as {
    specs: ClientSpec[];
    durationMs: number;
  };
  void Promise.all(
    specs.map(({ url, method, headers, bodyHex }) =>
      legitimateClient(
        url,
        { method, headers, body: bodyHex ? Buffer.from(bodyHex, 'hex') : undefined },
        durationMs,
      ),
    ),
  ).then((results) => process.stdout.write(JSON.stringify(results)));
} else if (process.env.EXHAUSTION_CHILD) {
  const { flood, urls } = JSON.parse(process.env.EXHAUSTION_CHILD) as { flood: Flood; urls: string[] };
  startFlood(urls, flood.kind === 'kept-alive' ? KEPT_ALIVE : SLOWLORIS, flood);
} else runMain(main);
