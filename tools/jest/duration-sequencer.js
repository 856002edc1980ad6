// Runs the longest suites first, by the durations measured in CI (tools/jest/suite-durations.json,
// refreshed by tools/jest/record-durations.js). Jest's own order needs its cache, which a fresh
// clone does not have: it then orders by file size, and a long suite started last keeps one worker
// busy while the other idles. A suite that failed in this checkout's last run still goes first.
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const root = join(__dirname, '../..');

/** The pass whose durations apply: real Postgres + NATS, or the embedded defaults. */
function pass() {
  return process.env.DATABASE_URL && process.env.NATS_URL ? 'real' : 'embedded';
}

function measured() {
  try {
    return JSON.parse(readFileSync(join(__dirname, 'suite-durations.json'), 'utf8'))[pass()] ?? {};
  } catch {
    return {};
  }
}

class DurationSequencer extends Sequencer {
  sort(tests) {
    const seconds = measured();
    const duration = (test) => seconds[relative(root, test.path)] ?? -1;
    // Jest's order (failed first, then its cache or the file size) decides between equals, and
    // orders the suites not measured yet (new ones), after the measured ones.
    const sorted = super.sort(tests);
    const rank = new Map(sorted.map((test, index) => [test, index]));
    return sorted.slice().sort((a, b) => {
      const failed = Number(this.hasFailed(b)) - Number(this.hasFailed(a));
      return failed || duration(b) - duration(a) || rank.get(a) - rank.get(b);
    });
  }
}

module.exports = DurationSequencer;
