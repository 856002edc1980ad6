#!/usr/bin/env node
// `npm test`: every project's unit suites (in parallel), then the integration suites (in band:
// they start whole services and share the machine's Postgres/NATS when DATABASE_URL/NATS_URL
// are set). Extra arguments go to both Jest runs. Ends with one line "N passed, M failed".
const { spawnSync } = require('node:child_process');
const { mkdirSync, readFileSync, existsSync } = require('node:fs');
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
console.log(
  `Integration suites run on the embedded defaults${real ? ' and on DATABASE_URL + NATS_URL' : ' only (set DATABASE_URL and NATS_URL to add real Postgres + NATS)'}.`,
);

// TEST_SUITES=integration runs only the integration suites (CI's second pass, on real Postgres +
// NATS: the unit suites do not read DATABASE_URL/NATS_URL, so running them again proves nothing).
const only = process.env.TEST_SUITES;
const runs = [
  { name: 'unit', args: ['--testPathIgnorePatterns', 'int-spec'] },
  { name: 'integration', args: ['--testPathPatterns', 'int-spec', '--runInBand', '--forceExit'] },
].filter((run) => !only || run.name === only);
if (runs.length === 0) {
  console.error(`TEST_SUITES must be unit or integration, not ${only}`);
  process.exit(2);
}

let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;
for (const run of runs) {
  const report = join(out, `jest-${run.name}.json`);
  const result = spawnSync(
    process.execPath,
    [jest, '-c', 'jest.config.js', ...run.args, '--json', '--outputFile', report, ...extra],
    {
      cwd: root,
      env,
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) ok = false;
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
if (!ok && failed === 0) failed = 1; // a suite that could not run counts as a failure
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(ok && failed === 0 ? 0 : 1);
