#!/usr/bin/env node
// CPU microseconds per certificate by stage, from a `.cpuprofile` of the system's process taken
// by `bench/issuance.ts --cpu-prof DIR` and the window and count that benchmark prints:
//
//   node bench/profiles/by-stage.js <file.cpuprofile> --window FROM-TO --issued N
//        [--main-cpu-ms MS --process-cpu-ms MS] [--unclassified 15]
//   node bench/profiles/by-stage.js <file.cpuprofile> --last SECONDS --issued N
//
// --window FROM-TO: µs on the monotonic clock, the clock of the profile's own timestamps (the
//   benchmark prints it: from the start of its load until the process has gone quiet, so the
//   events the load set off are consumed inside it). --last: the profile's last N seconds instead.
// --main-cpu-ms, --process-cpu-ms: the CPU time /proc counted over the window for the main thread
//   and for the whole process (the benchmark prints both). A sample's weight is wall time: on a
//   machine busy with other work the main thread is often waiting for a core while "running", so
//   the sampled busy time overstates its CPU. With --main-cpu-ms the stages are the sampled shares
//   of that CPU time; "other threads" is the rest of the process (libuv's pool: crypto jobs and
//   fs; V8's GC helpers; the profiler's sampler). The profile samples the main thread only.
//
// How a sample is given a stage (the rules are the table RULES below, first match wins):
// 1. Walk its stack from the running function towards the root; the first frame whose script
//    (url, node_modules made relative) or function name matches a rule of the "code" kind gives
//    the stage. So the innermost library or app directory wins: `pg` called from TypeORM called
//    from a Nest handler is SQL; `JSON.stringify` (native, no url) called by pino is logging.
// 2. Else the same walk with the rules for Node's own modules (`node:_http_*` is HTTP,
//    `node:internal/crypto` is sign, streams and sockets with no library above them are "node I/O").
// 3. Else `(garbage collector)` is GC; anything else (`(program)`, natives with only natives
//    above them) is "other". `(idle)` is not busy time and is left out.
const { readFileSync } = require('node:fs');

/** [stage, kind, test on "<url> <functionName>"]. Order matters within a kind. */
const RULES = [
  // Logging: pino and its destination, the scrubber and the Nest adapter it runs behind.
  [
    'logging',
    'code',
    /nm\/(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|on-exit-leak-free)\//,
  ],
  ['logging', 'code', /libs\/observability\/src\/(logger|nest-pino\.logger|secret-scrubber)\.ts/],
  // Tracing: the OpenTelemetry API and SDK, the context it keeps, our tracing helpers.
  ['tracing', 'code', /nm\/@opentelemetry\//],
  [
    'tracing',
    'code',
    /libs\/observability\/src\/tracing\/|libs\/messaging\/src\/events\/traced-handler\.ts|libs\/messaging\/src\/rpc\/.*trac/,
  ],
  ['metrics', 'code', /nm\/(prom-client|tdigest|bintrees)\/|libs\/observability\/src\/metrics\//],
  // Auth: JWT verification and the gateway's guards.
  ['auth', 'code', /nm\/(jose|passport[^/]*|jsonwebtoken|jws|jwa)\/|apps\/gateway\/src\/auth\//],
  // Validation: DTO transformation and validation.
  ['validation', 'code', /nm\/(class-validator|class-transformer|validator|libphonenumber-js)\//],
  [
    'validation',
    'code',
    /apps\/gateway\/src\/http\/.*(validation|pipe)|libs\/contracts\/src\/(?!events\/|common\/event-envelope)/,
  ],
  // Audit: the gateway's audit trail (its SQL is under SQL, as every statement is).
  ['audit', 'code', /apps\/gateway\/src\/audit\//],
  // Events and outbox: outbox rows, the relay, inboxes, event parsing and the consumers' handlers.
  ['events/outbox', 'code', /libs\/messaging\/src\/(outbox|inbox|retention|dead-letters)\//],
  [
    'events/outbox',
    'code',
    /libs\/contracts\/src\/(events\/|common\/event-envelope)|libs\/messaging\/src\/events\/validated-events\.ts/,
  ],
  [
    'events/outbox',
    'code',
    /apps\/[^/]+\/src\/.*(projection|consumer|subscriber|\.handler|events?)\b[^/]*\.ts/,
  ],
  // SQL: drivers, ORM, PGlite (its JS and its wasm) and the wire shim in front of it.
  [
    'SQL',
    'code',
    /nm\/(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-[^/]+|typeorm|@electric-sql\/pglite[^/]*)\//,
  ],
  ['SQL', 'code', /^wasm:|libs\/persistence\/src\//],
  // Bus: request/reply and the event transports (in process, NATS JetStream).
  ['bus', 'code', /nm\/(nats|@nats-io\/[^/]+|nkeys\.js)\/|libs\/messaging\/src\//],
  // Key generation of the leaf key the gateway hands out, and keys exported for callers.
  [
    'keygen',
    'code',
    /apps\/gateway\/src\/certificates\/leaf-key-pair\.ts|libs\/pki\/src\/(private-key|ec-key-pair)\.ts/,
  ],
  // Signing: the certificate built and signed (libs/pki, custody, issuance's signing).
  ['sign', 'code', /libs\/(pki|custody)\/src\/|apps\/issuance\/src\/(signing|custody)\//],
  ['sign', 'code', /nm\/(pkijs|asn1js|@peculiar\/[^/]+|pvtsutils|pvutils|bytestreamjs)\//],
  // HTTP: Node's server, Express and Nest routing, the gateway's HTTP plumbing and controllers.
  [
    'HTTP',
    'code',
    /nm\/(express|router|body-parser|raw-body|on-finished|finalhandler|send|serve-static|path-to-regexp|qs|content-type|type-is|mime[^/]*|iconv-lite|statuses|http-errors|depd|accepts|negotiator|cookie[^/]*|etag|fresh|vary|parseurl|encodeurl|escape-html|proxy-addr|forwarded|range-parser|media-typer|helmet|compression|@nestjs\/[^/]+|rxjs|reflect-metadata|tslib)\//,
  ],
  [
    'HTTP',
    'code',
    /apps\/gateway\/src\/(http|text|certificates|openapi|downloads|rate-limit)\/|libs\/(runtime|problem)\/src\//,
  ],
  ['app (other)', 'code', /^(apps|libs)\//],
  // Node's own modules, when no library or app frame is above them.
  ['HTTP', 'node', /^node:(_http_|http|https)/],
  ['sign', 'node', /^node:internal\/crypto\//],
  [
    'node I/O',
    'node',
    /^node:(net|stream|internal\/stream|internal\/streams|internal\/net|internal\/fs|fs|dns|internal\/dns)/,
  ],
];

const STAGE_ORDER = [
  'HTTP',
  'auth',
  'validation',
  'bus',
  'keygen',
  'sign',
  'SQL',
  'events/outbox',
  'audit',
  'logging',
  'tracing',
  'metrics',
  'app (other)',
  'node I/O',
  'GC',
  'other',
];

function parseArgs(argv) {
  const options = { unclassified: 0 };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--window') {
      const [from, to] = argv[++i].split('-').map(Number);
      options.window = { from, to };
    } else if (arg === '--last') options.last = Number(argv[++i]);
    else if (arg === '--issued') options.issued = Number(argv[++i]);
    else if (arg === '--process-cpu-ms') options.processCpuMs = Number(argv[++i]);
    else if (arg === '--main-cpu-ms') options.mainCpuMs = Number(argv[++i]);
    else if (arg === '--unclassified') options.unclassified = Number(argv[++i]);
    else rest.push(arg);
  }
  options.file = rest[0];
  return options;
}

function where(url) {
  return (url || '')
    .replace(/^.*node_modules\//, 'nm/')
    .replace(/^(file:\/\/)?.*?\/(apps|libs|bench)\//, '$2/');
}

function classifyFrame(callFrame, kind) {
  const text = `${where(callFrame.url)} ${callFrame.functionName}`;
  for (const [stage, ruleKind, test] of RULES) if (ruleKind === kind && test.test(text)) return stage;
  return undefined;
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!options.file || !options.issued || (!options.window && !options.last)) {
    console.error(
      'usage: node bench/profiles/by-stage.js <file.cpuprofile> (--window FROM-TO | --last S) --issued N [--process-cpu-ms MS] [--unclassified TOP]',
    );
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(options.file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

  // Sample i was taken at startTime + the deltas up to i; its weight is the time to the next one.
  const at = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) at.push((t += delta));
  const from = options.window ? options.window.from : profile.endTime - options.last * 1e6;
  const to = options.window ? options.window.to : profile.endTime;

  const stageOfNode = new Map();
  const stageOf = (id) => {
    if (stageOfNode.has(id)) return stageOfNode.get(id);
    const self = nodes.get(id).callFrame;
    let stage;
    for (const kind of ['code', 'node']) {
      for (let n = id; n !== undefined && !stage; n = parent.get(n))
        stage = classifyFrame(nodes.get(n).callFrame, kind);
      if (stage) break;
    }
    if (!stage) stage = self.functionName === '(garbage collector)' ? 'GC' : 'other';
    stageOfNode.set(id, stage);
    return stage;
  };

  const byStage = new Map();
  const unclassified = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (at[i] < from || at[i] > to) return;
    const weight = (at[i + 1] ?? profile.endTime) - at[i];
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === '(idle)') return;
    busy += weight;
    const stage = stageOf(id);
    byStage.set(stage, (byStage.get(stage) ?? 0) + weight);
    if (stage === 'other' || stage === 'node I/O' || stage === 'app (other)') {
      const key = `${stage}: ${frame.functionName || '(anonymous)'} ${where(frame.url)}:${frame.lineNumber + 1}`;
      unclassified.set(key, (unclassified.get(key) ?? 0) + weight);
    }
  });

  // µs of CPU per sampled µs: 1 without /proc's count.
  const scale = options.mainCpuMs ? (options.mainCpuMs * 1000) / busy : 1;
  const perCert = (us) => ((us * scale) / options.issued).toFixed(0).padStart(7);
  const share = (us) => `${((100 * us) / busy).toFixed(1)}%`;
  const row = (name, us, shareText) =>
    console.log(`| ${name.padEnd(15)} | ${perCert(us).padStart(18)} | ${shareText.padStart(20)} |`);
  console.log(
    `${options.issued} certificates in a ${((to - from) / 1e6).toFixed(1)} s window; main thread sampled busy ${(busy / 1e6).toFixed(2)} s` +
      (options.mainCpuMs
        ? `, its CPU (/proc) ${(options.mainCpuMs / 1000).toFixed(2)} s: samples scaled by ${scale.toFixed(2)}`
        : ''),
  );
  console.log('| stage           | µs per certificate | share of main thread |');
  console.log('| --------------- | -----------------: | -------------------: |');
  for (const stage of STAGE_ORDER) row(stage, byStage.get(stage) ?? 0, share(byStage.get(stage) ?? 0));
  row('main thread', busy, '100%');
  if (options.processCpuMs !== undefined && options.mainCpuMs !== undefined) {
    row('other threads', ((options.processCpuMs - options.mainCpuMs) * 1000) / scale, '');
    row('process (/proc)', (options.processCpuMs * 1000) / scale, '');
  }
  if (options.unclassified > 0) {
    console.log('--- largest unclassified (app (other), node I/O, other) by self time');
    [...unclassified]
      .sort((a, b) => b[1] - a[1])
      .slice(0, options.unclassified)
      .forEach(([name, us]) => console.log(`${perCert(us)} µs  ${name}`));
  }
}

main();
