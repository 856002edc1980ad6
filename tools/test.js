#!/usr/bin/env node
// `npm test`: every project's unit suites (in parallel), then the integration suites (in band:
// they start whole services and share the machine's Postgres/NATS when DATABASE_URL/NATS_URL
// are set). Extra arguments go to both Jest runs. Ends with one line "N passed, M failed".
const { spawn } = require('node:child_process');
const { mkdirSync, readFileSync, existsSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const out = join(root, 'tmp');
mkdirSync(out, { recursive: true });
const jest = require.resolve('jest/bin/jest');
// PGlite loads its WebAssembly through a dynamic import, which Jest's VM allows only with this flag.
const env = {
  ...process.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings`.trim(),
};
const extra = process.argv.slice(2);

const real = process.env.DATABASE_URL && process.env.NATS_URL;
/** Where the outsider and fault suites live (they run only on real Postgres + NATS). */
const OUTSIDERS = '/tests/(security|faults)/';
console.log(
  `Integration suites run on the embedded defaults${real ? ' and on DATABASE_URL + NATS_URL' : ' only (set DATABASE_URL and NATS_URL to add real Postgres + NATS)'}.`,
);

// TEST_SUITES=integration runs only the integration suites (CI's second pass, on real Postgres +
// NATS: the unit suites do not read DATABASE_URL/NATS_URL, so running them again proves nothing).
const only = process.env.TEST_SUITES;
if (only && only !== 'unit' && only !== 'integration') {
  console.error(`TEST_SUITES must be unit or integration, not ${only}`);
  process.exit(2);
}
// Two workers: Jest's default on two cores is one (cores - 1), which left a core idle.
const WORKERS = ['--maxWorkers', '2'];
// No --forceExit: every integration suite closes what it opens (tools/jest/closing-environment.js
// fails the one that does not), and the watchdog below ends a run that still would not exit.
// Each component and system suite has its own database (or data dir), ports and stream names, so
// two run side by side (one per core), on the embedded defaults and on a shared Postgres + NATS
// alike (two systems hold about 70 of Postgres's 100 connections).
const NOT_OUTSIDERS = real ? ['--testPathIgnorePatterns', OUTSIDERS] : [];
const runs = [
  // Without TEST_SUITES the unit and integration suites share one run: the longest start first
  // (tools/jest/duration-sequencer.js) and the short unit suites fill both workers at the end,
  // where two runs each ended on one busy worker and one idle.
  ...(only ? [] : [{ name: 'all', args: [...WORKERS, ...NOT_OUTSIDERS] }]),
  ...(only === 'unit' ? [{ name: 'unit', args: ['--testPathIgnorePatterns', 'int-spec', ...WORKERS] }] : []),
  ...(only === 'integration'
    ? [{ name: 'integration', args: ['--testPathPatterns', 'int-spec', ...WORKERS, ...NOT_OUTSIDERS] }]
    : []),
  // The outsider and fault suites (tests/) start every service as a process of its own, floods and
  // kills included: one at a time, so that no other suite's load decides what they observe.
  ...(real && only !== 'unit'
    ? [{ name: 'outsiders', args: ['--testPathPatterns', `${OUTSIDERS}.*int-spec`, '--runInBand'] }]
    : []),
];

// CI's second pass (TEST_REAL_ONLY=1) runs on real Postgres + NATS only what storage and transport
// can change. These suites test what the edge makes of a request or what a real client makes of
// our bytes (the same code answers in every mode), or start the embedded system only: the first
// pass ran them, and running them again would prove nothing new.
const FIRST_PASS_ONLY = [
  'tests/system/src/abuse', // request validation at the gateway
  'tests/system/src/certificate-v2', // v2 fields and answers
  'tests/system/src/cli', // the CLI speaks HTTP (embedded only)
  'tests/system/src/console', // the console in Chromium drives the public API (embedded, as npm start)
  'tests/system/src/csr-issuance', // CSR parsing and key rules
  'tests/system/src/custody', // KEK file and SoftHSM custody (embedded only)
  'tests/system/src/deployment-key-algorithm', // RSA keys and signatures: what is signed, not where it is stored
  'tests/system/src/edge-security', // hostile HTTP at both ports
  'tests/system/src/issuance-policy', // name policy decisions
  'tests/system/src/issuing-ca-constraints', // name constraints and EKU written into the issuing CA
  'tests/system/src/metrics-access', // who may read /metrics
  'tests/system/src/names-policy', // name syntax rules
  'tests/system/src/ocsp-fast-front', // the OCSP HTTP front
  'tests/system/src/ocsp-fuzz', // DER fuzzing of the OCSP parser over HTTP
  'tests/system/src/openapi', // the OpenAPI document (embedded only)
  'tests/system/src/pkcs12-clients', // openssl and Node open our PKCS#12
  'tests/system/src/real-clients', // openssl, GnuTLS, nginx, Java on our certificates, CRLs, OCSP
  'libs/persistence/src/embedded-postgres', // the embedded database itself (PGlite)
  'libs/persistence/src/pglite-wire', // the embedded database's wire server
];
if (process.env.TEST_REAL_ONLY === '1') {
  for (const run of runs) {
    if (run.name !== 'unit') run.args.push('--testPathIgnorePatterns', ...FIRST_PASS_ONLY);
  }
}

// Jest writes its report when the last suite ends; a process still alive this long after that is
// held open by something a suite left behind (named by the failing suite): stop it, count a failure.
const EXIT_GRACE_MS = 30_000;

function runJest(run, report) {
  rmSync(report, { force: true });
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [jest, '-c', 'jest.config.js', ...run.args, '--json', '--outputFile', report, ...extra],
      { cwd: root, env, stdio: 'inherit' },
    );
    let hung = false;
    const watchdog = setInterval(() => {
      if (!existsSync(report)) return;
      clearInterval(watchdog);
      setTimeout(() => {
        hung = true;
        console.error(
          `\nJest did not exit ${EXIT_GRACE_MS / 1000} s after the ${run.name} run ended: stopped.`,
        );
        child.kill('SIGKILL');
      }, EXIT_GRACE_MS).unref();
    }, 1000);
    child.on('exit', (code) => {
      clearInterval(watchdog);
      resolve(code === 0 && !hung);
    });
  });
}

async function main() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let ok = true;
  for (const run of runs) {
    const report = join(out, `jest-${run.name}.json`);
    if (!(await runJest(run, report))) ok = false;
    if (existsSync(report)) {
      const r = JSON.parse(readFileSync(report, 'utf8'));
      passed += r.numPassedTests;
      failed += r.numFailedTests;
      skipped += r.numPendingTests + r.numTodoTests;
      if (r.numRuntimeErrorTestSuites > 0) ok = false;
    } else {
      ok = false;
    }
  }
  if (!ok && failed === 0) failed = 1; // a suite that could not run (or a run that would not exit) counts as a failure
  console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(ok && failed === 0 ? 0 : 1);
}

void main();
