/**
 * Cold start: wall time from spawning `npm start` with a fresh, empty DATA_DIR until
 * `GET /health/ready` answers 200 on both the admin port and the PKI port (polled every 25 ms).
 * Peer: the floor, a bare Node `http` server that starts listening and exits.
 *
 *   node -r @swc-node/register bench/cold-start.ts [--runs 3] [--quick] [--no-record]
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs, intOption } from './lib/args';
import { freePort, waitFor200 } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { mustRun, runMain, spawnGroup, stopGroup, tempDir } from './lib/proc';
import { REPO_ROOT, report } from './lib/report';
import { BENCH_SYSTEM_ENV, cleanEnv } from './lib/system';
import { int, median, ratio } from './lib/stats';

const USAGE = `bench/cold-start.ts: npm start until both ports are ready, against a bare Node http server.
  --runs N      starts of each (default 3; --quick: 1)
  --quick       one run each
  --no-record   do not append to bench/history`;

interface StartRun {
  readyMs: number;
  printedMs: number;
}

async function startOnce(npm: string): Promise<StartRun> {
  const dataDir = tempDir('cold');
  const [gatewayPort, pkiPort] = [await freePort(), await freePort()];
  const logFile = join(dataDir, 'stdout.log');
  const log = openSync(logFile, 'a');
  const started = performance.now();
  const child = spawnGroup(npm, ['start'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', log, log],
    env: {
      ...cleanEnv(),
      ...BENCH_SYSTEM_ENV,
      DATA_DIR: dataDir,
      GATEWAY_PORT: String(gatewayPort),
      PKI_PORT: String(pkiPort),
      PKI_PUBLIC_URL: `http://127.0.0.1:${pkiPort}`,
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
    },
  });
  closeSync(log);
  try {
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) =>
        reject(new Error(`npm start exited with ${code}:\n${readFileSync(logFile, 'utf8')}`)),
      ),
    );
    await Promise.race([
      Promise.all([
        waitFor200(`http://127.0.0.1:${gatewayPort}/health/ready`, 180_000),
        waitFor200(`http://127.0.0.1:${pkiPort}/health/ready`, 180_000),
      ]),
      exited,
    ]);
    exited.catch(() => undefined);
    const readyMs = performance.now() - started;
    // The line `npm start` prints once ready ("CA Manager is ready in N ms"); it may lag the port.
    let printedMs = NaN;
    for (let i = 0; i < 40 && Number.isNaN(printedMs); i++) {
      const match = /ready in (\d+) ms/.exec(readFileSync(logFile, 'utf8'));
      if (match) printedMs = Number(match[1]);
      else await new Promise((r) => setTimeout(r, 50));
    }
    return { readyMs, printedMs };
  } finally {
    await stopGroup(child, 20_000);
  }
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, { runs: { type: 'string' } });
  const runs = intOption(values.runs, 'runs', quick ? 1 : 3);
  const machine = machineInfo();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

  const ours: StartRun[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    process.stdout.write(`cold start ${i + 1}/${runs}: npm start… `);
    const run = await startOnce(npm);
    ours.push(run);
    process.stdout.write(`${int(run.readyMs)} ms; bare node http… `);
    const bare = await mustRun(process.execPath, [
      '-e',
      "require('http').createServer().listen(0, '127.0.0.1', () => process.exit(0))",
    ]);
    floor.push(bare.ms);
    process.stdout.write(`${int(bare.ms)} ms\n`);
  }

  const rows = ours.map((run, i) => [
    String(i + 1),
    `${int(run.readyMs)} ms`,
    `${int(run.printedMs)} ms`,
    `${int(floor[i])} ms`,
  ]);
  const oursMedian = median(ours.map((r) => r.readyMs));
  const floorMedian = median(floor);
  rows.push([
    'median',
    `**${int(oursMedian)} ms**`,
    `${int(median(ours.map((r) => r.printedMs)))} ms`,
    `${int(floorMedian)} ms`,
  ]);
  report(
    {
      title: 'cold start, `npm start` until both ports are ready',
      command: '`npm run bench -- cold-start` (`node -r @swc-node/register bench/cold-start.ts`)',
      machine,
      settings: [
        `What: wall time from spawning \`npm start\` with a fresh, empty DATA_DIR (embedded: PGlite, in-process transport) until \`GET /health/ready\` answers 200 on both the admin port and the PKI port, polled every 25 ms; ${runs} run(s), each with its own new DATA_DIR, free ports; median reported.`,
        'Peer (the floor): spawning `node -e "require(\'http\').createServer().listen(0, …, () => process.exit(0))"` until it exits.',
      ],
      tables: [
        {
          headers: [
            'run',
            'ready on both ports',
            '"ready in" printed by npm start',
            'bare Node http server (floor)',
          ],
          rows,
        },
      ],
      notes: [
        `Ratio ours / floor: **${ratio(oursMedian, floorMedian)}** (${int(oursMedian)} ms against ${int(floorMedian)} ms).`,
        'The printed figure starts after configuration is loaded, so it leaves out starting npm and Node and loading and transpiling the modules.',
      ],
    },
    record,
  );
}

runMain(main);
