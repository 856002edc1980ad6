#!/usr/bin/env node
// `npm run bench [-- <names…>] [--quick] [--no-record] [--at <git revision>]`: runs the benchmarks
// one after the other, each as `node -r @swc-node/register bench/<file>.ts`. Each prints its table
// and appends a dated entry to bench/history/<YYYY-MM>.md. Names: crl, ocsp, issuance, list, revocation, cold-start,
// webhooks (default: all of these), and soak (10 minutes), floods, replicas and events-scaling (only when named). Other options are passed to every benchmark.
//
// --at <rev>  benchmarks that git revision instead of the working tree (useful while the tree is
//             being edited): its files are exported with `git archive` into a temporary directory,
//             with this bench/ and the repository's node_modules; entries still go to this
//             checkout's bench/history.
const { spawn, spawnSync } = require('node:child_process');
const { cpSync, mkdtempSync, rmSync, symlinkSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const BENCHMARKS = {
  crl: 'crl-build.ts',
  ocsp: 'ocsp.ts',
  issuance: 'issuance.ts',
  'csr-issuance': 'csr-issuance.ts',
  'sql-statement': 'sql-statement.ts',
  list: 'list.ts',
  revocation: 'revocation.ts',
  'cold-start': 'cold-start.ts',
  soak: 'soak.ts',
  floods: 'floods.ts',
  exhaustion: 'exhaustion.ts',
  replicas: 'replicas.ts',
  'events-scaling': 'events-scaling.ts',
  webhooks: 'webhooks.ts',
  inventory: 'inventory.ts',
  acme: 'acme.ts',
  'acme-request': 'acme-request.ts',
  'issuance-ab': 'issuance-ab.ts',
};
// Run only when named: the soak alone takes 10 minutes (`npm run bench -- soak`); floods load the
// machine on purpose (`npm run bench -- floods`, `exhaustion`); replicas needs DATABASE_URL, events-scaling real
// NATS (`npm run bench -- replicas events-scaling`); acme answers http-01 on port 80 (root) and wants step-ca
// (STEP_CA_BIN or PATH) as its peer (`npm run bench -- acme`); acme-request and issuance-ab compare two checkouts of ours (`--against DIR`); csr-issuance runs step-ca beside ours in
// several rounds (`npm run bench -- csr-issuance`); sql-statement measures the database per statement.
const OPT_IN = [
  'acme',
  'acme-request',
  'issuance-ab',
  'csr-issuance',
  'sql-statement',
  'soak',
  'floods',
  'exhaustion',
  'replicas',
  'events-scaling',
  'inventory',
];

const root = join(__dirname, '..');
const args = process.argv.slice(2);
const names = [];
const passThrough = [];
let at;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--at') at = args[++i];
  else if (args[i] === '--help' || args[i] === '-h') {
    console.log(
      `usage: npm run bench -- [${Object.keys(BENCHMARKS).join('|')} …] [--quick] [--no-record] [--at <git rev>]\n` +
        'Each benchmark also runs alone: node -r @swc-node/register bench/<file>.ts --help',
    );
    process.exit(0);
  } else if (args[i].startsWith('-')) {
    passThrough.push(args[i]);
    // Every option but these flags takes a value (--sizes 1000, or --sizes=1000).
    const flag = ['--quick', '--no-record'].includes(args[i]) || args[i].includes('=');
    if (!flag && i + 1 < args.length) passThrough.push(args[++i]);
  } else if (BENCHMARKS[args[i]]) names.push(args[i]);
  else {
    console.error(`unknown benchmark "${args[i]}"; choose from ${Object.keys(BENCHMARKS).join(', ')}`);
    process.exit(2);
  }
}
const selected = names.length > 0 ? names : Object.keys(BENCHMARKS).filter((name) => !OPT_IN.includes(name));

let cwd = root;
let snapshot;
const env = { ...process.env };
if (at) {
  const rev = spawnSync('git', ['rev-parse', '--short', `${at}^{commit}`], { cwd: root, encoding: 'utf8' });
  if (rev.status !== 0) {
    console.error(`--at: not a git revision: ${at}`);
    process.exit(2);
  }
  snapshot = mkdtempSync(join(tmpdir(), 'ca-bench-snapshot-'));
  const archive = spawnSync('sh', ['-c', `git archive --format=tar "$0" | tar -x -C "$1"`, at, snapshot], {
    cwd: root,
    stdio: 'inherit',
  });
  if (archive.status !== 0) {
    rmSync(snapshot, { recursive: true, force: true });
    process.exit(1);
  }
  rmSync(join(snapshot, 'bench'), { recursive: true, force: true });
  cpSync(join(root, 'bench'), join(snapshot, 'bench'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(snapshot, 'node_modules'), 'dir');
  cwd = snapshot;
  env.BENCH_COMMIT = `${rev.stdout.trim()} (exported with --at ${at})`;
  env.BENCH_HISTORY_DIR = join(root, 'bench', 'history');
  console.log(`Benchmarking ${at} (${rev.stdout.trim()}) in a temporary export.`);
}

let current;
const cleanup = () => {
  if (snapshot) rmSync(snapshot, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // The benchmark stops its own processes on the same signal; wait for it, then clean up.
    const done = () => {
      cleanup();
      process.exit(130);
    };
    if (current) current.once('exit', done);
    else done();
  });
}

(async () => {
  const failed = [];
  for (const name of selected) {
    console.log(`\n=== ${name} (bench/${BENCHMARKS[name]}) ===`);
    const code = await new Promise((resolve) => {
      current = spawn(
        process.execPath,
        ['-r', '@swc-node/register', join('bench', BENCHMARKS[name]), ...passThrough],
        {
          cwd,
          env,
          stdio: 'inherit',
        },
      );
      current.once('exit', (c, signal) => resolve(signal ? 1 : c));
    });
    current = undefined;
    if (code !== 0) failed.push(name);
  }
  cleanup();
  console.log(
    failed.length === 0 ? `\nAll ${selected.length} benchmark(s) done.` : `\nFailed: ${failed.join(', ')}`,
  );
  process.exit(failed.length === 0 ? 0 : 1);
})();
