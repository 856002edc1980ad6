// Jest's node environment, plus one rule for integration suites: a suite closes what it opens.
// The integration run has no --forceExit, so a server, socket, child process or timer a suite
// leaves behind would keep Jest from exiting after the last suite. This names the suite that left
// it (the resources of the process before the suite are the baseline) and fails that suite, so a
// leak is a red test with a name, not a CI run that hangs.
const { TestEnvironment } = require('jest-environment-node');

// Resource types that keep the event loop alive and that a suite creates itself (unref'd ones are
// not listed by Node). A server or child process left open fails the suite; the rest (client
// sockets, timers) is only named on stderr: most end by themselves (a keep-alive socket, a late
// answer's timeout), and one that never ends is caught by the run's exit watchdog in tools/test.js
// with this line to go by.
const FAILING = new Set(['TCPServerWrap', 'ProcessWrap', 'UDPWrap']);
// Everything else but requests in flight and standard streams is named, not failed.
const NOT_COUNTED = new Set(['FSReqCallback', 'FSReqPromise', 'TTYWrap', 'GetAddrInfoReqWrap', 'Immediate']);
// Closing is asynchronous (a socket's close event, a pool's idle timer): wait this long before judging.
const SETTLE_MS = Number(process.env.TEST_LEAK_SETTLE_MS ?? 10_000);

function countResources() {
  const counts = new Map();
  for (const type of process.getActiveResourcesInfo()) {
    if (!NOT_COUNTED.has(type)) counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
}

function leaked(before) {
  const now = countResources();
  return [...now]
    .map(([type, n]) => [type, n - (before.get(type) ?? 0)])
    .filter(([, extra]) => extra > 0)
    .map(([type, extra]) => `${extra} ${type}`);
}

class ClosingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.checked = /int-spec\.ts$/.test(context.testPath) && process.env.TEST_LEAK_CHECK !== '0';
  }

  async setup() {
    await super.setup();
    if (this.checked) this.before = countResources();
  }

  // Judged when the run finishes (after every afterAll, before teardown), and reported as an
  // error of the run, so the suite fails with its tests' own results still shown: a failed
  // beforeAll that left a process behind shows its own error first, not only the leak.
  async handleTestEvent(event, state) {
    if (event.name !== 'run_finish' || !this.checked) return;
    const error = await this.leakError();
    if (error) state.unhandledErrors.push(error);
  }

  async leakError() {
    const deadline = Date.now() + SETTLE_MS;
    const failingOf = (entries) => entries.filter((entry) => FAILING.has(entry.split(' ')[1]));
    let left = leaked(this.before);
    const timerGrace = Date.now() + 2000; // a pool's idle timer, a late answer's timeout
    const settling = () =>
      Date.now() < deadline && (failingOf(left).length > 0 || (left.length > 0 && Date.now() < timerGrace));
    while (settling()) {
      await new Promise((resolve) => setTimeout(resolve, 100).unref());
      left = leaked(this.before);
    }
    const failing = failingOf(left);
    if (left.length > failing.length) {
      process.stderr.write(`${this.testPath}: still pending after the suite: ${left.join(', ')}\n`);
    }
    if (failing.length === 0) return undefined;
    return new Error(
      `the suite left open what it started: ${failing.join(', ')} (close servers, clients, child processes and timers in afterAll)`,
    );
  }
}

module.exports = ClosingEnvironment;
