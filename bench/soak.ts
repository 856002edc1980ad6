/**
 * Soak: a steady mixed load (issue, list, revoke, OCSP, ACME nonce) against `npm start` (embedded
 * mode) or, with `--real`, the same system on DATABASE_URL's Postgres (a throwaway database) and
 * NATS_URL's NATS (streams of its own), for 10 minutes. The system process's memory is sampled
 * every few seconds and its storage once per retention window: rows and bytes of every table of
 * every schema, and on NATS the event stream's and blob stream's messages and bytes. The system
 * runs with every retention window set to `--window` (EVENT_RETENTION_DAYS, BLOB_TTL,
 * DOWNLOAD_LINK_TTL, ACME_NONCE_LIFETIME; docs/operations.md#retention), so a short run passes
 * several. Prints a table per minute, per window and per table, and a verdict: the memory growth
 * trend (least-squares slope of RSS over time, after a warm-up), the errors, and whether the
 * tables of transient rows stay flat after the first window (bench/lib/storage-report.ts).
 * Not run in CI; `npm run bench -- soak` (opt-in) or alone:
 *   node -r @swc-node/register bench/soak.ts [--minutes 10] [--rate 20] [--sample-seconds 5] [--window 2m] [--real]
 *
 * Steady means open loop at a fixed rate: `--rate` operations per second are started on
 * schedule whatever the latency (at most 64 in flight), so a slower system shows up as latency
 * and errors, not as less load. Data stays bounded per tenant: each tenant takes 300 issues, then
 * the load moves to a new tenant, so list answers and CRLs do not grow for the whole run (a memory
 * trend then means the process keeps something it should not).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildCertId, parseOcspResponse, pemToDer } from '@ca/pki';
import { benchArgs, intOption } from './lib/args';
import { httpCall } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import { int, mib, ms, percentile } from './lib/stats';
import { StorageProbe } from './lib/storage';
import { WindowSample, perTableTable, storageVerdict, windowTable } from './lib/storage-report';
import { ISSUE_BODY, RunningSystem, adminApi, initializeCa, startSystem } from './lib/system';

const USAGE = `usage: node -r @swc-node/register bench/soak.ts [--minutes N] [--rate OPS_PER_S] [--sample-seconds N] [--window DURATION] [--real] [--quick] [--no-record]
  --minutes          length of the steady load (default 10; --quick: 1)
  --rate             operations started per second (default 20)
  --sample-seconds   memory sampling interval (default 5)
  --window           every retention window of the system, and the storage sampling interval (default 2m; 1m to 60m)
  --real             on DATABASE_URL's Postgres (a throwaway database) and NATS_URL's NATS instead of embedded`;

type Operation = 'issue' | 'list' | 'revoke' | 'ocsp' | 'nonce';
/**
 * Out of 20 operations: 6 issue, 2 list, 4 revoke, 7 OCSP (relying parties ask more than admins
 * write), 1 ACME new-nonce (each stores a nonce until it expires).
 */
const MIX: Operation[] = [
  ...Array<Operation>(6).fill('issue'),
  ...Array<Operation>(2).fill('list'),
  ...Array<Operation>(4).fill('revoke'),
  ...Array<Operation>(7).fill('ocsp'),
  'nonce',
];
const ISSUES_PER_TENANT = 300;
const MAX_IN_FLIGHT = 64;
/** Samples in the first minute (a quarter of shorter runs) are left out of the trend: JIT, caches, pools filling. */
const warmupMs = (durationMs: number) => Math.min(60_000, durationMs / 4);

interface Tenant {
  tenantId: string;
  token: string;
  caDer: Uint8Array;
  issued: { certificateId: string; serialNumber: string }[];
  /** Certificates issued and not revoked yet, oldest first. */
  unrevoked: { certificateId: string; serialNumber: string }[];
}

interface Outcome {
  at: number;
  op: Operation;
  ms: number;
  ok: boolean;
  kind?: string;
}

interface Sample {
  at: number;
  rssBytes: number;
  /** Events not yet consumed by each durable consumer (`ca_consumer_pending`), when /metrics answers. */
  pending: Record<string, number>;
}

/** `ca_consumer_pending{consumer="…"}` values from the system's Prometheus metrics. */
async function consumerPending(system: RunningSystem): Promise<Record<string, number>> {
  const answer = await httpCall(`${system.adminUrl}/metrics`, { timeoutMs: 5_000 }).catch(() => undefined);
  const pending: Record<string, number> = {};
  if (answer?.status !== 200) return pending;
  for (const match of answer.body.toString().matchAll(/^ca_consumer_pending\{consumer="([^"]+)"\} (\d+)/gm))
    pending[match[1]] = Number(match[2]);
  return pending;
}

/** Resident set size of a process (Linux /proc), bytes. */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** Least-squares line through (x, y): slope, and R² (how well a line explains the points). */
function linearTrend(points: { x: number; y: number }[]): { slope: number; r2: number } {
  const n = points.length;
  if (n < 3) return { slope: NaN, r2: NaN };
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
    syy += (p.y - my) ** 2;
  }
  const slope = sxy / sxx;
  return { slope, r2: syy === 0 ? 0 : (sxy * sxy) / (sxx * syy) };
}

/** OCSPRequest (RFC 6960 4.1.1) with one CertID and no nonce: four SEQUENCEs around the CertID. */
function ocspRequest(caDer: Uint8Array, serialNumberHex: string): Buffer {
  const sequence = (content: Uint8Array) => {
    const octets: number[] = [];
    for (let n = content.length; n > 0; n >>= 8) octets.unshift(n & 0xff);
    const length = content.length < 0x80 ? [content.length] : [0x80 | octets.length, ...octets];
    return Buffer.concat([Buffer.of(0x30, ...length), content]);
  };
  const certId = buildCertId({ issuerCertificateDer: caDer, serialNumberHex, hashAlgorithm: 'sha1' });
  return sequence(sequence(sequence(sequence(certId.der))));
}

async function newTenant(system: RunningSystem): Promise<Tenant> {
  const tenantId = randomUUID();
  const token = await system.token(tenantId);
  const caPem = await initializeCa(system, adminApi(system, token), tenantId);
  return { tenantId, token, caDer: pemToDer(caPem), issued: [], unrevoked: [] };
}

runMain(async () => {
  const { quick, record, values } = benchArgs(USAGE, {
    minutes: { type: 'string' },
    rate: { type: 'string' },
    'sample-seconds': { type: 'string' },
    window: { type: 'string' },
    real: { type: 'boolean' },
  });
  const minutes = intOption(values.minutes, 'minutes', quick ? 1 : 10);
  const rate = intOption(values.rate, 'rate', 20);
  const sampleMs = intOption(values['sample-seconds'], 'sample-seconds', 5) * 1000;
  const windowText = typeof values.window === 'string' ? values.window : '2m';
  const windowMatch = /^(\d+)(m|s)$/.exec(windowText);
  const windowMs = windowMatch ? Number(windowMatch[1]) * (windowMatch[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!(windowMs >= 60_000 && windowMs <= 3_600_000))
    throw new Error(`--window: 1m to 60m, got "${windowText}"`);
  const real = values.real === true;
  if (real && (!process.env.DATABASE_URL || !process.env.NATS_URL))
    throw new Error('--real needs DATABASE_URL and NATS_URL');
  const machine = machineInfo();
  // Every retention window of the system at --window, so the run passes several of them.
  const retentionEnv = {
    EVENT_RETENTION_DAYS: windowText,
    BLOB_TTL: windowText,
    DOWNLOAD_LINK_TTL: windowText,
    ACME_NONCE_LIFETIME: windowText,
  };
  const system = await startSystem({
    mode: real ? 'postgres' : 'embedded',
    env: { LOG_LEVEL: 'warn', ...retentionEnv },
    exposeDatabase: true,
  });
  const probe = await StorageProbe.open(system.databaseUrl!, system.nats);
  // A server with autovacuum off (a shared test server) never reuses pruned rows' space; in
  // production it is on (docs/operations.md#retention). The bench vacuums its throwaway database
  // once a minute instead, as autovacuum would, and says so in the entry.
  const standInVacuum = real && !(await probe.autovacuum());
  const vacuumTimer = standInVacuum
    ? setInterval(
        () =>
          void probe.vacuum().catch((error: unknown) => process.stderr.write(`vacuum: ${String(error)}\n`)),
        60_000,
      )
    : undefined;
  process.stdout.write(
    `system ready in ${ms(system.readyMs)} (pid ${system.pid}, ${system.description}); ${minutes} min at ${rate} ops/s, retention windows ${windowText}\n`,
  );

  let tenant = await newTenant(system);
  const tenants = [tenant];
  // Tenant rotation runs alongside the load; the issues meanwhile still go to the old tenant.
  let rotating: Promise<void> | undefined;
  const outcomes: Outcome[] = [];
  const samples: Sample[] = [];
  const start = performance.now();
  const durationMs = minutes * 60_000;
  const now = () => performance.now() - start;

  let issuesStarted = 0;
  const perform = async (op: Operation): Promise<{ ok: boolean; kind?: string }> => {
    const t = tenant;
    const api = adminApi(system, t.token);
    if (op === 'issue') {
      // One issue in six asks for download links (stored until they expire), the others for PEMs.
      const asFile = issuesStarted++ % 6 === 0;
      const answer = await api.call(
        'POST',
        '/v1/certificates',
        asFile ? { ...ISSUE_BODY, responseFormat: 'File' } : ISSUE_BODY,
      );
      if (answer.status !== 200)
        return { ok: false, kind: `issue ${answer.status} ${String(answer.json.code ?? '')}` };
      const issued = {
        certificateId: String(answer.json.certificateId),
        serialNumber: String(answer.json.serialNumber),
      };
      t.issued.push(issued);
      t.unrevoked.push(issued);
      if (t.issued.length >= ISSUES_PER_TENANT && !rotating && t === tenant)
        rotating = newTenant(system).then(
          (next) => {
            tenants.push(next);
            tenant = next;
            rotating = undefined;
          },
          (error: unknown) => {
            // Counted as an error; the next issue tries again.
            rotating = undefined;
            outcomes.push({
              at: now(),
              op: 'issue',
              ms: 0,
              ok: false,
              kind: `new tenant: ${(error as Error).message}`,
            });
          },
        );
      return { ok: true };
    }
    if (op === 'list') {
      const answer = await api.call('GET', '/v1/certificates');
      return answer.status === 200 ? { ok: true } : { ok: false, kind: `list ${answer.status}` };
    }
    if (op === 'revoke') {
      // Revoke the oldest unrevoked certificate, but keep the newest few good for OCSP.
      if (t.unrevoked.length < 10) return perform('ocsp');
      const target = t.unrevoked.shift()!;
      const answer = await api.call('POST', `/v1/certificates/${target.certificateId}/revoke`, {
        reason: 'soak',
        reasonCode: 'Superseded',
      });
      return answer.status === 200
        ? { ok: true }
        : { ok: false, kind: `revoke ${answer.status} ${String(answer.json.code ?? '')}` };
    }
    if (op === 'nonce') {
      const answer = await httpCall(`${system.adminUrl}/acme/${t.tenantId}/new-nonce`, { method: 'HEAD' });
      return answer.status === 200 ? { ok: true } : { ok: false, kind: `nonce ${answer.status}` };
    }
    if (t.issued.length === 0) return { ok: true };
    const target = t.issued[Math.floor(Math.random() * t.issued.length)];
    const answer = await httpCall(`${system.pkiUrl}/v1/tenants/${t.tenantId}/ocsp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ocsp-request' },
      body: ocspRequest(t.caDer, target.serialNumber),
    });
    if (answer.status !== 200) return { ok: false, kind: `ocsp HTTP ${answer.status}` };
    const parsed = parseOcspResponse(new Uint8Array(answer.body));
    // A certificate issued a moment ago may not have reached the responder yet: "unknown" is fine.
    return parsed.responseStatus === 'successful'
      ? { ok: true }
      : { ok: false, kind: `ocsp ${parsed.responseStatus}` };
  };

  const sample = async () => {
    try {
      const at = now();
      const rssBytes = rssOf(system.pid);
      samples.push({ at, rssBytes, pending: await consumerPending(system) });
    } catch (error) {
      process.stderr.write(`sample failed: ${String(error)}\n`);
    }
  };
  const sampler = setInterval(() => void sample(), sampleMs);
  await sample();

  const windows: WindowSample[] = [];
  const okCount = (op: Operation) => outcomes.filter((o) => o.op === op && o.ok).length;
  const sampleStorage = async () => {
    try {
      const atMinutes = now() / 60_000;
      const issued = okCount('issue');
      const revoked = okCount('revoke');
      windows.push({ atMinutes, issued, revoked, storage: await probe.sample() });
      const w = windows.at(-1)!;
      const transient = Object.entries(w.storage.tables)
        .filter(([name]) => /outbox|inbox|stream|blobs|nonces|downloads|rate_limit/.test(name))
        .map(([name, size]) => `${name.split('.')[1]} ${size.rows}`)
        .join(', ');
      process.stdout.write(`window ${windows.length - 1} at ${atMinutes.toFixed(1)} min: ${transient}\n`);
    } catch (error) {
      process.stderr.write(`storage sample failed: ${String(error)}\n`);
    }
  };
  await sampleStorage();
  const storageSampler = setInterval(() => void sampleStorage(), windowMs);

  let inFlight = 0;
  let skipped = 0;
  const running = new Set<Promise<void>>();
  let sequence = 0;
  let lastMinute = -1;
  while (now() < durationMs) {
    const due = (sequence * 1000) / rate;
    const wait = due - now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const op = MIX[sequence % MIX.length];
    sequence++;
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped++;
      outcomes.push({ at: now(), op, ms: 0, ok: false, kind: 'not sent: 64 in flight' });
      continue;
    }
    inFlight++;
    const began = performance.now();
    const task: Promise<void> = perform(op)
      .catch((error: unknown) => ({ ok: false, kind: `${op} ${(error as Error).message}` }))
      .then((result) => {
        outcomes.push({ at: began - start, op, ms: performance.now() - began, ...result });
      })
      .finally(() => {
        inFlight--;
        running.delete(task);
      });
    running.add(task);
    const minute = Math.floor(now() / 60_000);
    if (minute !== lastMinute) {
      lastMinute = minute;
      const rss = samples.at(-1)?.rssBytes ?? NaN;
      process.stdout.write(
        `minute ${minute}: ${outcomes.length} answers, RSS ${mib(rss)}, ${tenants.length} tenant(s)\n`,
      );
    }
  }
  await Promise.all(running);
  clearInterval(sampler);
  clearInterval(storageSampler);
  clearInterval(vacuumTimer);
  // The last window's sample, when the interval did not fire before the load ended.
  if ((windows.at(-1)?.atMinutes ?? 0) * 60_000 < durationMs - windowMs / 2) await sampleStorage();
  await sample();
  if (!system.alive()) throw new Error(`the system died during the soak:\n${system.logTail()}`);
  await probe.close();
  await system.stop();

  // Per minute: answers by operation, errors, latency and memory at the end of the minute.
  const rows: string[][] = [];
  for (let m = 0; m < minutes; m++) {
    const inMinute = outcomes.filter((o) => o.at >= m * 60_000 && o.at < (m + 1) * 60_000);
    const count = (op: Operation) => int(inMinute.filter((o) => o.op === op && o.ok).length);
    const latencies = inMinute.filter((o) => o.ok).map((o) => o.ms);
    const rss = samples.filter((s) => s.at <= (m + 1) * 60_000).at(-1)?.rssBytes ?? NaN;
    const samplesIn = samples.filter((s) => s.at >= m * 60_000 && s.at < (m + 1) * 60_000);
    rows.push([
      String(m + 1),
      count('issue'),
      count('list'),
      count('revoke'),
      count('ocsp'),
      int(inMinute.filter((o) => !o.ok).length),
      ms(percentile(latencies, 50)),
      ms(percentile(latencies, 99)),
      mib(rss),
      int(Math.max(0, ...samplesIn.map((x) => x.pending['revocation'] ?? 0))),
      int(Math.max(0, ...samplesIn.map((x) => x.pending['ocsp-responder'] ?? 0))),
    ]);
  }
  const errors = outcomes.filter((o) => !o.ok);
  const errorKinds = new Map<string, number>();
  for (const e of errors) errorKinds.set(e.kind ?? 'unknown', (errorKinds.get(e.kind ?? 'unknown') ?? 0) + 1);

  const trendPoints = samples
    .filter((s) => s.at >= warmupMs(durationMs))
    .map((s) => ({ x: s.at / 60_000, y: s.rssBytes / 2 ** 20 }));
  const trend = linearTrend(trendPoints);
  const meanMiB = trendPoints.reduce((s, p) => s + p.y, 0) / Math.max(1, trendPoints.length);
  const measuredMinutes = (durationMs - warmupMs(durationMs)) / 60_000;
  const projectedGrowth = trend.slope * measuredMinutes;
  // A trend is growth when the line rises by more than max(16 MiB, 5 % of the mean) over the
  // measured window and explains the samples (R² ≥ 0.5); noise around a flat line is not.
  const growthThreshold = Math.max(16, meanMiB * 0.05);
  const growing = projectedGrowth > growthThreshold && trend.r2 >= 0.5;
  const verdictMemory = growing
    ? `GROWTH TREND: RSS rises ${trend.slope.toFixed(2)} MiB/min (R² ${trend.r2.toFixed(2)}), ${projectedGrowth.toFixed(0)} MiB over the ${measuredMinutes} measured minutes (threshold ${growthThreshold.toFixed(0)} MiB)`
    : `no growth trend: slope ${trend.slope.toFixed(2)} MiB/min (R² ${trend.r2.toFixed(2)}), ${projectedGrowth.toFixed(1)} MiB over the ${measuredMinutes} measured minutes (threshold ${growthThreshold.toFixed(0)} MiB)`;
  const verdictErrors =
    errors.length === 0
      ? `no errors in ${int(outcomes.length)} operations`
      : `${int(errors.length)} errors in ${int(outcomes.length)} operations: ${[...errorKinds].map(([k, n]) => `${k} ×${n}`).join(', ')}`;
  const rssValues = samples.map((s) => s.rssBytes);
  const storage = storageVerdict(windows);
  const perWindow = windowTable(windows, system.nats !== undefined);
  const perTable = perTableTable(windows);
  const failed = growing || errors.length > 0 || !storage.ok;

  report(
    {
      title: `soak, ${minutes} minute${minutes === 1 ? '' : 's'} of steady mixed load on \`npm start\`${real ? ' on Postgres + NATS' : ''}`,
      command: `\`npm run bench -- soak\` (\`node -r @swc-node/register bench/soak.ts${minutes === 10 ? '' : ` --minutes ${minutes}`}${rate === 20 ? '' : ` --rate ${rate}`}${windowText === '2m' ? '' : ` --window ${windowText}`}${real ? ' --real' : ''}\`)`,
      machine,
      settings: [
        `Load: open loop, ${rate} operations started per second (at most ${MAX_IN_FLIGHT} in flight), in a fixed cycle of 20: 6 \`POST /v1/certificates\` (one with \`responseFormat: File\`: download links), 2 \`GET /v1/certificates\`, 4 \`POST /v1/certificates/{id}/revoke\` (oldest unrevoked), 7 OCSP POST for a random issued serial, 1 ACME \`HEAD new-nonce\`; a new tenant (CA) every ${ISSUES_PER_TENANT} issues, so per-tenant lists and CRLs stay bounded (${tenants.length} tenants in all); one new HTTP connection per request.`,
        `Memory: RSS of the system's process (/proc/<pid>/status VmRSS) every ${sampleMs / 1000} s; the trend is the least-squares slope after the first ${warmupMs(durationMs) / 1000} s. Lag: the most events a durable consumer had not consumed yet in a sample of that minute (\`ca_consumer_pending\` from \`/metrics\`); a lag that keeps rising means the consumer cannot keep up with the load.`,
        `Storage: rows (\`count(*)\`) and bytes (\`pg_total_relation_size\`) of every table of the schemas gateway, issuance, revocation, ocsp, acme and messaging${system.nats ? ', and messages and bytes of the event stream (CA_EVENTS) and the blob stream (\`jsm.streams.info\`)' : ''}, at the start and every ${windowText}. Retention windows all ${windowText}: \`${Object.entries(
          retentionEnv,
        )
          .map(([k, v]) => `${k}=${v}`)
          .join(
            ' ',
          )}\` (the event retention job then runs every quarter window); rate-limit windows (2 min kept), the superseded-CRL blob grace (2 min) and the audit log (30 days) keep their fixed retention. Transient tables must stay flat after window 1: at the end within ×1.25 (+50 rows, +256 KiB) of the most they held at windows 1–2.`,
        `System: ${system.description}, LOG_LEVEL=warn, ready in ${ms(system.readyMs)}.${standInVacuum ? ' The server runs with autovacuum off: the bench ran `VACUUM` on the throwaway database once a minute in its place.' : ''}`,
      ],
      tables: [
        {
          headers: [
            'minute',
            'issued',
            'lists',
            'revoked',
            'OCSP',
            'errors',
            'p50',
            'p99',
            'RSS at end',
            'revocation lag (max)',
            'responder lag (max)',
          ],
          rows,
        },
        { title: 'Storage at the end of each window', ...perWindow },
        {
          title: 'Rows / bytes of every table that held anything',
          headers: perTable.headers,
          rows: perTable.rows,
          align: perTable.headers.map((_, i) => (i < 2 ? 'left' : 'right')),
        },
      ],
      notes: [
        `Storage: ${storage.text}. Empty throughout: ${perTable.empty.map((n) => `\`${n}\``).join(', ') || 'none'}.`,
        `Certificates: ${storage.bytesPerCertificate}.`,
        `Memory: ${verdictMemory}. RSS from ${mib(rssValues[0])} at start to ${mib(rssValues.at(-1)!)} at the end (min ${mib(Math.min(...rssValues))}, max ${mib(Math.max(...rssValues))}, ${samples.length} samples).`,
        `Errors: ${verdictErrors}${skipped ? ` (${skipped} not sent because ${MAX_IN_FLIGHT} were in flight)` : ''}.`,
      ],
    },
    record,
  );
  process.stdout.write(
    `\nVERDICT: ${failed ? 'FAIL' : 'PASS'}: ${verdictMemory}; ${verdictErrors}; storage: ${storage.text}; ${storage.bytesPerCertificate}\n`,
  );
  if (failed) process.exitCode = 1;
});
