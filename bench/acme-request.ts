/**
 * The fixed cost of one ACME request: many requests of one kind (a POST-as-GET of an
 * authorization, a HEAD new-nonce, a GET of the directory) through the gateway, with the system's
 * CPU (its process plus, on Postgres, its database's backends) and its database statements counted
 * per request. With `--against DIR` a second system runs from another checkout (an earlier
 * revision exported with node_modules beside it) and the two take turns, batch by batch, so that a
 * before/after pair sees the same machine load.
 *
 *   node -r @swc-node/register bench/acme-request.ts [--kinds authz,nonce,directory] [--requests 400]
 *     [--pairs 2] [--concurrency 4] [--mode embedded|postgres] [--against DIR] [--cpu-prof DIR] [--no-record]
 *
 * `--cpu-prof DIR` profiles this tree's system and prints, per batch, the arguments for
 * bench/profiles/by-stage.js (the window on the profile's clock, the request count as `--issued`).
 */
import { Agent as HttpAgent } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { mapPool } from '@ca/test-support';
import { AcmeLoadClient, AcmeAnswer, Http01Responder } from './lib/acme-load';
import { acmeTenant, AcmeTenant } from './lib/acme-tenant';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { mainThreadCpuMs, processCpuMs } from './lib/process-cpu';
import { runMain, tempDir } from './lib/proc';
import { report, Table } from './lib/report';
import { RunningSystem, startSystem, SystemMode } from './lib/system';

const USAGE = `bench/acme-request.ts: CPU and statements per ACME request, one kind at a time.
  --kinds LIST      authz (POST-as-GET), nonce (HEAD new-nonce), directory (GET); default authz,nonce
  --requests N      requests per batch (default 400; --quick: 100)
  --pairs N         batches per system and kind, alternated (default 2)
  --concurrency C   clients, one account each (default 4)
  --mode M          embedded (default) or postgres (DATABASE_URL, NATS_URL)
  --against DIR     also run the system from this checkout and alternate with it (before/after)
  --cpu-prof DIR    profile this tree's system (node --cpu-prof), written at its exit
  --no-record       do not append to bench/history`;

const KINDS = ['authz', 'nonce', 'directory'] as const;
type Kind = (typeof KINDS)[number];

interface Subject {
  name: string;
  system: RunningSystem;
  tenant: AcmeTenant;
  clients: { client: AcmeLoadClient; authz: string }[];
  statementsFile: string;
  /** CPU per second while nothing is asked of it (pollers, timers), subtracted from each batch. */
  idleMsPerSecond: number;
  /** The pollers' statements per second, by text, subtracted likewise. */
  idleStatementsPerSecond: Record<string, number>;
}

interface Batch {
  requests: number;
  wallMs: number;
  cpuMs: number;
  statements: Record<string, number>;
  load: number;
}

const PRELOAD = join(__dirname, 'lib', 'count-statements.js');

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    kinds: { type: 'string' },
    requests: { type: 'string' },
    pairs: { type: 'string' },
    concurrency: { type: 'string' },
    mode: { type: 'string' },
    against: { type: 'string' },
    'cpu-prof': { type: 'string' },
  });
  const kinds = (typeof values.kinds === 'string' ? values.kinds.split(',') : ['authz', 'nonce']) as Kind[];
  for (const kind of kinds) if (!KINDS.includes(kind)) throw new Error(`unknown kind ${kind}`);
  const requests = intOption(values.requests, 'requests', quick ? 100 : 400);
  const pairs = intOption(values.pairs, 'pairs', 2);
  const concurrency = intOption(values.concurrency, 'concurrency', 4);
  const mode = (typeof values.mode === 'string' ? values.mode : 'embedded') as SystemMode;
  const profileDir = typeof values['cpu-prof'] === 'string' ? resolve(values['cpu-prof']) : undefined;
  const machine = machineInfo();

  const roots: { name: string; root?: string }[] = [{ name: 'this tree' }];
  if (typeof values.against === 'string') roots.push({ name: 'against', root: resolve(values.against) });
  const subjects: Subject[] = [];
  for (const { name, root } of roots) {
    const statementsFile = join(tempDir('statements'), 'counts.json');
    process.stdout.write(`starting ${name} (${mode})… `);
    const system = await startSystem({
      mode,
      root,
      nodeArgs: [
        '-r',
        PRELOAD,
        ...(profileDir && !root ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ],
      env: {
        BENCH_STATEMENTS_FILE: statementsFile,
        ACME_RATE_LIMIT_PER_TENANT: '10000000',
        ACME_RATE_LIMIT_PER_SOURCE: '10000000',
        ACME_RATE_LIMIT_PER_ACCOUNT: '10000000',
        ACME_NEW_ORDERS_PER_ACCOUNT: '10000000',
      },
    });
    process.stdout.write(`ready in ${Math.round(system.readyMs)} ms\n`);
    const tenant = await acmeTenant(system);
    const agent = new HttpAgent({ keepAlive: true, maxSockets: concurrency + 1 });
    const clients = await mapPool(
      Array.from({ length: concurrency }, (_, i) => i),
      1,
      async (i) => {
        const client = new AcmeLoadClient({
          directoryUrl: tenant.directoryUrl,
          agent,
          responder: { answers: new Map() } as unknown as Http01Responder,
          eab: await tenant.eab(),
        });
        await client.open();
        return {
          client,
          authz: await client.authorizationOf(`r${i}-${randomBytes(3).toString('hex')}.bench.test`),
        };
      },
    );
    subjects.push({
      name,
      system,
      tenant,
      clients,
      statementsFile,
      idleMsPerSecond: 0,
      idleStatementsPerSecond: {},
    });
  }
  // Warm-up (JIT, pools, caches) for every kind, then each system's idle CPU.
  for (const subject of subjects) for (const kind of kinds) await batch(subject, kind, 100);
  for (const subject of subjects) await idleRate(subject);

  const results = new Map<string, Batch[]>();
  for (const kind of kinds) {
    for (let pair = 0; pair < pairs; pair++) {
      const order = pair % 2 === 0 ? subjects : [...subjects].reverse();
      for (const subject of order) {
        const windowFrom = monotonicMicros();
        const mainBefore = mainThreadCpuMs(subject.system.pid) ?? NaN;
        const processBefore = processCpuMs(subject.system.pid) ?? NaN;
        const result = await batch(subject, kind, requests);
        const key = `${subject.name}|${kind}`;
        results.set(key, [...(results.get(key) ?? []), result]);
        process.stdout.write(
          `${kind} ${subject.name}: ${(result.cpuMs / result.requests).toFixed(2)} ms CPU/request, ` +
            `${(result.wallMs / result.requests).toFixed(2)} ms wall/request, ` +
            `${(total(result.statements) / result.requests).toFixed(2)} statements/request, load ${result.load.toFixed(2)}\n`,
        );
        if (profileDir && !roots.find((r) => r.name === subject.name)?.root) {
          process.stdout.write(
            `  by-stage: --window ${windowFrom}-${monotonicMicros()} --issued ${result.requests} ` +
              `--process-cpu-ms ${(processCpuMs(subject.system.pid) ?? NaN) - processBefore} ` +
              `--main-cpu-ms ${(mainThreadCpuMs(subject.system.pid) ?? NaN) - mainBefore}\n`,
          );
        }
      }
    }
  }
  for (const subject of subjects) await subject.system.stop();

  const summary: string[][] = [];
  const statementTables: Table[] = [];
  for (const kind of kinds) {
    for (const subject of subjects) {
      const batches = results.get(`${subject.name}|${kind}`)!;
      const n = batches.reduce((a, b) => a + b.requests, 0);
      const statements: Record<string, number> = {};
      for (const b of batches)
        for (const [text, count] of Object.entries(b.statements))
          statements[text] = (statements[text] ?? 0) + count;
      summary.push([
        kind,
        subject.name,
        batches.map((b) => (b.cpuMs / b.requests).toFixed(2)).join(' / '),
        (batches.reduce((a, b) => a + b.cpuMs, 0) / n).toFixed(2),
        (batches.reduce((a, b) => a + b.wallMs, 0) / n).toFixed(2),
        (total(statements) / n).toFixed(2),
        batches.map((b) => b.load.toFixed(1)).join(' / '),
      ]);
      statementTables.push({
        title: `Statements per request, ${kind}, ${subject.name}:`,
        headers: ['statement (first 80 characters)', 'per request'],
        rows: Object.entries(statements)
          .filter(([, count]) => count / n >= 0.005)
          .sort((a, b) => b[1] - a[1])
          .map(([text, count]) => [`\`${text}\``, (count / n).toFixed(2)]),
      });
    }
  }
  report(
    {
      title: `ACME requests one kind at a time (${mode}), ${concurrency} clients`,
      command: '`node -r @swc-node/register bench/acme-request.ts`',
      machine,
      settings: [
        `${subjects.map((s) => `${s.name}: ${s.system.description}`).join('; ')}. ${pairs} batches of ${requests} requests per system and kind, ${subjects.length > 1 ? 'alternated (A B, B A, …)' : 'one system'}, after 100 of warm-up.`,
        `CPU: the system's process (and on Postgres its database's backends) from the batch's start until quiet, less its idle rate (${subjects.map((s) => `${s.name} ${s.idleMsPerSecond.toFixed(1)} ms/s`).join(', ')}) over the batch; /proc ticks of 10 ms. Statements: every pg Client.query of the process (embedded: through the database's wire server), less the idle rate of each statement's text (the pollers').`,
      ],
      tables: [
        {
          title: 'Per request:',
          headers: ['kind', 'system', 'CPU ms per batch', 'CPU ms', 'wall ms', 'statements', 'load'],
          rows: summary,
        },
        ...statementTables,
      ],
      notes: [],
    },
    record,
  );
}

async function batch(subject: Subject, kind: Kind, requests: number): Promise<Batch> {
  await quiet(subject);
  const statementsBefore = await statementsNow(subject);
  const cpuBefore = await subject.tenant.cpuMs();
  const started = performance.now();
  let next = 0;
  await mapPool(subject.clients, subject.clients.length, async ({ client, authz }) => {
    while (next < requests) {
      next++;
      const answer = await send(client, kind, authz);
      if (answer.status >= 300) throw new Error(`${kind}: ${answer.status} ${answer.body.toString()}`);
    }
  });
  const wallMs = performance.now() - started;
  const cpuAfter = await quiet(subject);
  const statementsAfter = await statementsNow(subject);
  const elapsedMs = performance.now() - started;
  const statements: Record<string, number> = {};
  for (const [text, count] of Object.entries(statementsAfter)) {
    const idle = ((subject.idleStatementsPerSecond[text] ?? 0) * elapsedMs) / 1000;
    const diff = Math.round(count - (statementsBefore[text] ?? 0) - idle);
    if (diff > 0) statements[text] = diff;
  }
  return {
    requests,
    wallMs,
    cpuMs: Math.max(0, cpuAfter - cpuBefore - (subject.idleMsPerSecond * elapsedMs) / 1000),
    statements,
    load: loadavg()[0],
  };
}

function send(client: AcmeLoadClient, kind: Kind, authz: string): Promise<AcmeAnswer> {
  switch (kind) {
    case 'authz':
      return client.read(authz);
    case 'nonce':
      return client.headNonce();
    case 'directory':
      return client.getDirectory();
  }
}

/** The CPU so far once the system has gone quiet (under 10 ms over 300 ms), at most 5 s. */
async function quiet(subject: Subject): Promise<number> {
  let last = await subject.tenant.cpuMs();
  for (const until = Date.now() + 5_000; Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await subject.tenant.cpuMs();
    const busy = now - last;
    last = now;
    if (busy < 10) break;
  }
  return last;
}

/** What the system does per second on its own: CPU and statements (its pollers, housekeeping). */
async function idleRate(subject: Subject): Promise<void> {
  await quiet(subject);
  const statementsBefore = await statementsNow(subject);
  const before = await subject.tenant.cpuMs();
  const started = performance.now();
  await new Promise((r) => setTimeout(r, 5_000));
  const cpu = (await subject.tenant.cpuMs()) - before;
  const statementsAfter = await statementsNow(subject);
  const seconds = (performance.now() - started) / 1000;
  subject.idleMsPerSecond = cpu / seconds;
  for (const [text, count] of Object.entries(statementsAfter)) {
    const diff = count - (statementsBefore[text] ?? 0);
    if (diff > 0) subject.idleStatementsPerSecond[text] = diff / seconds;
  }
}

/** The preload writes its counts when signalled: signal, then read the file once it is newer. */
async function statementsNow(subject: Subject): Promise<Record<string, number>> {
  const before = mtimeOf(subject.statementsFile);
  process.kill(subject.system.pid, 'SIGUSR2');
  for (const until = Date.now() + 5_000; Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 50));
    if (mtimeOf(subject.statementsFile) !== before)
      return JSON.parse(readFileSync(subject.statementsFile, 'utf8')) as Record<string, number>;
  }
  throw new Error(`${subject.name}: the statement counts were not written (is the preload there?)`);
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/** The clock of a `.cpuprofile`'s timestamps (monotonic, µs). */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

runMain(main);
