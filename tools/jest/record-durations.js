#!/usr/bin/env node
// Records each suite's duration from the reports `npm test` writes (tmp/jest-<run>.json) into
// tools/jest/suite-durations.json, which orders the next runs longest first (duration-sequencer.js).
// `.ci/run` calls it after each pass, from the checkout's root:
//   node tools/jest/record-durations.js embedded tmp/jest-all.json           (`npm test`)
//   node tools/jest/record-durations.js real tmp/jest-integration.json       (the real Postgres + NATS pass)
// It replaces that pass's durations of the suites the reports name; a suite not run keeps its own.
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '../..');
const file = join(__dirname, 'suite-durations.json');
const [pass, ...reports] = process.argv.slice(2);
if ((pass !== 'embedded' && pass !== 'real') || reports.length === 0) {
  console.error('usage: record-durations.js embedded|real tmp/jest-<run>.json...');
  process.exit(2);
}

const all = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
const durations = { ...all[pass] };
for (const path of reports) {
  for (const suite of JSON.parse(readFileSync(path, 'utf8')).testResults) {
    const { startTime, endTime } = suite;
    if (endTime > startTime)
      durations[relative(root, suite.name)] = Math.max(1, Math.round((endTime - startTime) / 1000));
  }
}
// Longest first, so that a diff of the file reads as the schedule.
all[pass] = Object.fromEntries(
  Object.entries(durations).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)),
);
writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
console.log(`${Object.keys(durations).length} ${pass} suite durations in ${relative(root, file)}`);
