/**
 * The certificate inventory at scale: `GET /v2/certificates` (a filtered first page, a `q`
 * search, a page at depth), `/summary`, `/export` and the streamed `GET /v1/certificates`, with
 * the store seeded through SQL (not the API): `--rows` certificates in one tenant and `--others`
 * in other tenants, on the embedded system (PGlite) and, when DATABASE_URL is set, on Postgres
 * (+ NATS when NATS_URL is set). Export: rows/s and the system process's resident memory.
 *
 *   node -r @swc-node/register bench/inventory.ts [--rows 1000000] [--others 0] [--runs 50] [--quick] [--no-record]
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { pemToDer } from '@ca/pki';
import { httpCall } from './lib/http-load';
import { ocspRequestFor, sleep, untilOcspSays } from './lib/ocsp-wait';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { report } from './lib/report';
import {
  Api,
  adminApi,
  createThrowawayDatabase,
  initializeCa,
  ISSUE_BODY,
  RunningSystem,
  startSystem,
  withClient,
} from './lib/system';
import { int, mib, ms, percentile } from './lib/stats';
import { MemorySample, memorySamples } from './lib/memory-samples';
import { runMain, tempDir } from './lib/proc';

const USAGE = `bench/inventory.ts: search, summary, export and bulk revocation over a seeded inventory.
  --rows N           certificates in the measured tenant (default 1000000; --quick: 50000)
  --others N         certificates in other tenants (default 0)
  --other-tenants N  how many other tenants share them (default 4)
  --bulk N           also seed a tenant of N certificates (none revoked), with its own CA (default 0)
  --revoke           revoke the bulk tenant's certificates by filter (once per seeded store)
  --runs N           calls of each timed request (default 50; --quick: 10)
  --modes M          embedded,postgres (default: embedded, and postgres when DATABASE_URL is set)
  --only P           search,summary,export (default: all)
  --depth N          certificates walked to reach the deep page (default --rows - 100)
  --state DIR        keep the seeded store in DIR and reuse it in the next run with the same sizes
  --drop             remove the kept store (and its database) at the end
  --export-rounds N  exports of each format, in turn (default 1: the first export of a fresh process
                     also grows its heap to its steady size)
  --node-args "A B"  flags for the system's node (e.g. --trace-gc, --max-old-space-size=256)
  --quick            smaller
  --no-record        do not append to bench/history`;

const CHUNK = 100_000;

interface KeptStore {
  mode: Mode;
  dataDir: string;
  databaseUrl?: string;
  caKek?: string;
  tenantId: string;
  bulkTenantId: string;
  rows: number;
  others: number;
  bulk: number;
  seedMs: number;
  bulkRevoked: boolean;
}

type Mode = 'embedded' | 'postgres';

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    rows: { type: 'string' },
    others: { type: 'string' },
    'other-tenants': { type: 'string' },
    runs: { type: 'string' },
    modes: { type: 'string' },
    state: { type: 'string' },
    drop: { type: 'boolean', default: false },
    bulk: { type: 'string' },
    revoke: { type: 'boolean', default: false },
    only: { type: 'string' },
    depth: { type: 'string' },
    'node-args': { type: 'string' },
    'export-rounds': { type: 'string' },
  });
  const exportRounds = intOption(values['export-rounds'], 'export-rounds', 1);
  const nodeArgs =
    typeof values['node-args'] === 'string' ? values['node-args'].split(' ').filter(Boolean) : [];
  const total = intOption(values.rows, 'rows', quick ? 50_000 : 1_000_000);
  const others = values.others === '0' ? 0 : intOption(values.others, 'others', 0);
  const otherTenants = intOption(values['other-tenants'], 'other-tenants', 4);
  const bulk = values.bulk === '0' ? 0 : intOption(values.bulk, 'bulk', 0);
  const revoke = values.revoke === true;
  if (revoke && bulk === 0) throw new Error('--revoke needs --bulk N');
  const runs = intOption(values.runs, 'runs', quick ? 10 : 50);
  const depthOption = typeof values.depth === 'string' ? intOption(values.depth, 'depth', 1) : undefined;
  const only = typeof values.only === 'string' ? values.only.split(',') : undefined;
  const measure = (part: string) => !only || only.includes(part);
  const stateDir = typeof values.state === 'string' ? resolve(values.state) : undefined;
  const modes = (
    typeof values.modes === 'string'
      ? values.modes
      : process.env.DATABASE_URL
        ? 'embedded,postgres'
        : 'embedded'
  ).split(',') as Mode[];
  const machine = machineInfo();
  const rows: string[][] = [];
  const settings: string[] = [];
  const notes: string[] = [];

  for (const mode of modes) {
    const kept = stateDir ? loadStore(stateDir, mode) : undefined;
    if (kept && (kept.rows !== total || kept.others !== others || kept.bulk !== bulk)) {
      throw new Error(
        `${stateFile(stateDir!, mode)} holds ${kept.rows} + ${kept.others} rows (bulk ${kept.bulk}), not ${total} + ${others} (bulk ${bulk}): --drop it first`,
      );
    }
    if (kept?.bulkRevoked && revoke) throw new Error('the kept store was bulk-revoked already: --drop it');
    const keep = stateDir ? await keepFor(stateDir, mode, kept) : undefined;
    process.stdout.write(`starting the system (${mode})… `);
    // A store kept from an earlier run may have migrations to apply first (an index of millions
    // of rows is minutes), so the system is given longer to be ready.
    const memoryFile = join(tempDir('memory'), 'samples.jsonl');
    const system = await startSystem({
      mode,
      exposeDatabase: mode === 'embedded',
      env: { BENCH_MEMORY_FILE: memoryFile },
      nodeArgs,
      keep,
      ...(kept ? { readyTimeoutMs: 900_000 } : {}),
    });
    process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
    let store = kept;
    try {
      if (!store) {
        const tenantId = randomUUID();
        const bulkTenantId = randomUUID();
        const api = adminApi(system, await system.token(tenantId));
        await initializeCa(system, api, tenantId);
        const bulkApi = adminApi(system, await system.token(bulkTenantId));
        if (bulk > 0) await initializeCa(system, bulkApi, bulkTenantId);
        const seedMs = await seed(system.databaseUrl!, api, bulkApi, { total, others, otherTenants, bulk });
        store = {
          mode,
          dataDir: system.dataDir,
          ...(keep?.databaseUrl ? { databaseUrl: keep.databaseUrl, caKek: keep.caKek } : {}),
          tenantId,
          bulkTenantId,
          rows: total,
          others,
          bulk,
          seedMs,
          bulkRevoked: false,
        };
        if (stateDir) saveStore(stateDir, store);
      }
      settings.push(
        `${system.description}: ${int(total)} certificates in the measured tenant + ${int(others)} in ${otherTenants} others${store.bulk ? ` + ${int(store.bulk)} in the bulk-revocation tenant` : ''}, seeded in ${ms(store.seedMs)}${kept ? ' (an earlier run; reused)' : ''}.`,
      );
      const token = await system.token(store.tenantId);
      const api = adminApi(system, token);
      const get = (path: string) => timed(api, path);
      const row = (what: string, samples: number[], extra = '') => {
        rows.push([
          system.description,
          what,
          ms(percentile(samples, 50)),
          `**${ms(percentile(samples, 99))}**`,
          extra,
        ]);
        process.stdout.write(`${rows[rows.length - 1].join(' | ')}\n`);
      };

      if (measure('search')) {
        row(
          'first page, `status=Active&usage=Client&limit=100`',
          await repeat(runs, () => get('/v2/certificates?status=Active&usage=Client&limit=100')),
        );
        let n = 0;
        row(
          '`q` search (a host name fragment), limit 100',
          await repeat(runs, () => get(`/v2/certificates?q=host-${(n += 7919) % total}.&limit=100`)),
        );
        row(
          '`q` search (a serial fragment), limit 100',
          await repeat(runs, () => get(`/v2/certificates?q=${(n++ % 90) + 10}ab&limit=100`)),
        );
        row(
          '`q` search (2 characters: most rows match), limit 100',
          await repeat(runs, () => get(`/v2/certificates?q=${(n++ % 90) + 10}&limit=100`)),
        );
        const depth = Math.min(depthOption ?? total - 100, Math.max(total - 100, 0));
        const deep = await cursorAt(api, depth);
        row(
          `page at depth ${int(depth / 100)} (limit 100)`,
          await repeat(runs, () => get(`/v2/certificates?limit=100&cursor=${encodeURIComponent(deep)}`)),
        );
      }
      if (measure('summary')) row('summary', await repeat(runs, () => get('/v2/certificates/summary')));
      if (measure('export')) {
        const formats = [
          ['export, NDJSON', '/v2/certificates/export', 'application/x-ndjson'],
          ['export, CSV', '/v2/certificates/export', 'text/csv'],
          ['`GET /v1/certificates` (streamed)', '/v1/certificates', 'application/json'],
        ] as const;
        for (const [what, path, accept] of Array.from({ length: exportRounds }, () => formats).flat()) {
          const result = await streamed(system, token, path, accept);
          rows.push([
            system.description,
            what,
            ms(result.ms),
            '',
            `${int(result.rows)} rows, **${int(result.rows / (result.ms / 1000))} rows/s**, RSS ${mib(result.rssStart)} → max ${mib(result.rssMax)} (**+${mib(result.rssMax - result.rssStart)}**)${memoryGrowth(memorySamples(memoryFile, result.from, result.to))}`,
          ]);
          process.stdout.write(`${rows[rows.length - 1].join(' | ')}\n`);
        }
      }
      if (revoke) {
        const result = await bulkRevocation(system, store.bulkTenantId, bulk).catch((error: unknown) => {
          notes.push(`Bulk revocation failed: ${(error as Error).message}`);
          return undefined;
        });
        if (result) {
          store.bulkRevoked = true;
          if (stateDir) saveStore(stateDir, store);
          rows.push([
            system.description,
            `revoke-matching of ${int(result.matched)} certificates`,
            ms(result.totalMs),
            '',
            `job done in ${ms(result.jobMs)} (${int(result.matched / (result.jobMs / 1000))}/s); every one in the served CRL (${int(result.crlEntries)} entries) after **${ms(result.crlMs)}**; ${result.ocspSampled} sampled serials revoked in OCSP after ${ms(result.ocspMs)}`,
          ]);
          process.stdout.write(`${rows[rows.length - 1].join(' | ')}\n`);
        }
      }
    } finally {
      await system.stop();
      if (stateDir && values.drop) await dropStore(stateDir, mode);
    }
  }
  report(
    {
      title: `certificate inventory over ${int(total)} certificates in one tenant (+ ${int(others)} in others)`,
      command: '`npm run bench -- inventory` (`node -r @swc-node/register bench/inventory.ts`)',
      machine,
      settings: [
        ...settings,
        'Seeded with generate_series copying one certificate issued through the API, the secondary indexes and the counters’ triggers off during the load, indexes built and the counters taken after it (unique serials and ids; commonName host-<i>.example.com; DNS SAN the same; 1,000 client ids; usage Client, every tenth Server; notAfter spread over 730 days; 1% revoked), then VACUUM ANALYZE. The bulk-revocation tenant: its own CA, none revoked, notAfter spread the same way.',
        `Timed calls one at a time, ${runs} each, p50 and p99 of the whole HTTP exchange (gateway included). The depth page: the cursor reached by walking pages of 1,000, then pages of 100 asked from it. Export and v1 list: the body read and counted as it streams; RSS of the system process sampled every 100 ms, and by the process itself its V8 heap (young generation and large objects apart) and memory outside the heap (bench/lib/memory-samples.ts). Bulk revocation: from the confirmed POST until the job is done, the served CRL lists every revoked serial and sampled serials answer revoked in OCSP.`,
      ],
      tables: [
        {
          headers: ['system', 'call', 'p50', 'p99', 'notes'],
          rows,
          align: ['left', 'left', 'right', 'right', 'left'],
        },
      ],
      notes,
    },
    record,
  );
}

function stateFile(dir: string, mode: Mode): string {
  return join(dir, `${mode}.json`);
}

function loadStore(dir: string, mode: Mode): KeptStore | undefined {
  const file = stateFile(dir, mode);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KeptStore) : undefined;
}

function saveStore(dir: string, store: KeptStore): void {
  writeFileSync(stateFile(dir, store.mode), JSON.stringify(store, null, 2), { mode: 0o600 });
}

/** Where a kept store lives: an existing one, or a new data directory (and database) to seed. */
async function keepFor(
  dir: string,
  mode: Mode,
  kept: KeptStore | undefined,
): Promise<{ dataDir: string; databaseUrl?: string; caKek?: string }> {
  if (kept) return { dataDir: kept.dataDir, databaseUrl: kept.databaseUrl, caKek: kept.caKek };
  const dataDir = join(dir, `data-${mode}`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (mode === 'embedded') return { dataDir };
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('postgres mode needs DATABASE_URL');
  const db = await createThrowawayDatabase(adminUrl);
  return { dataDir, databaseUrl: db.url, caKek: randomBytes(32).toString('base64') };
}

async function dropStore(dir: string, mode: Mode): Promise<void> {
  const kept = loadStore(dir, mode);
  if (kept?.databaseUrl && process.env.DATABASE_URL) {
    const name = new URL(kept.databaseUrl).pathname.slice(1);
    await withClient(process.env.DATABASE_URL, (c) =>
      c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    );
  }
  rmSync(join(dir, `data-${mode}`), { recursive: true, force: true });
  rmSync(stateFile(dir, mode), { force: true });
  process.stdout.write(`dropped the kept ${mode} store\n`);
}

/**
 * Revokes every certificate of the bulk tenant by filter, then waits for the job, for the served
 * CRL to list every serial it revoked, and for sampled serials to answer revoked in OCSP.
 */
async function bulkRevocation(
  system: RunningSystem,
  tenantId: string,
  expected: number,
): Promise<{
  matched: number;
  jobMs: number;
  crlMs: number;
  ocspMs: number;
  totalMs: number;
  crlEntries: number;
  ocspSampled: number;
}> {
  const api = adminApi(system, await system.token(tenantId));
  const dry = await api.call('POST', '/v2/certificates/revoke-matching', {
    filter: { status: 'Active' },
    reason: 'bulk revocation benchmark',
    reasonCode: 'Superseded',
    dryRun: true,
  });
  if (dry.status !== 200) throw new Error(`dry run: ${dry.status} ${JSON.stringify(dry.json)}`);
  const matched = dry.json.matched as number;
  // A few of the seeded certificates may have expired since the store was seeded (notAfter spread
  // from the seeding time on): the job revokes what is Active now.
  if (matched < expected * 0.99) throw new Error(`the bulk tenant matches ${matched}, not ${expected}`);
  const caPem = await httpCall(`${system.pkiUrl}/v1/tenants/${tenantId}/ca.pem`);
  const caDer = Buffer.from(pemToDer(caPem.body.toString()));
  const serials: string[] = await withClient(system.databaseUrl!, async (c) =>
    (
      await c.query<{ serial_number: string }>(
        `SELECT serial_number FROM issuance.certificates
          WHERE tenant_id = $1 AND revoked_at IS NULL AND not_after > now()`,
        [tenantId],
      )
    ).rows.map((r) => r.serial_number),
  );
  const started = performance.now();
  const job = await api.call('POST', '/v2/certificates/revoke-matching', {
    filter: { status: 'Active' },
    reason: 'bulk revocation benchmark',
    reasonCode: 'Superseded',
    expectedCount: matched,
  });
  if (job.status !== 202) throw new Error(`revoke-matching: ${job.status} ${JSON.stringify(job.json)}`);
  const jobId = job.json.jobId as string;
  let jobMs = 0;
  for (let last = -1; ;) {
    const state = await api.call('GET', `/v2/jobs/${jobId}`);
    const done = state.json.done as number;
    if (state.json.status !== 'running') {
      if (state.json.status !== 'done') throw new Error(`job ${JSON.stringify(state.json)}`);
      jobMs = performance.now() - started;
      break;
    }
    if (done !== last && done % 1 === 0) process.stdout.write(`job: ${int(done)} of ${int(matched)}\n`);
    last = done;
    await sleep(2_000);
  }
  process.stdout.write(`job done in ${ms(jobMs)}\n`);
  const wanted = new Set(serials.map((s) => s.toUpperCase().replace(/^0+(?=.)/, '')));
  const crlUrl = `${system.pkiUrl}/v1/tenants/${tenantId}/crl`;
  let crlMs = 0;
  let crlEntries = 0;
  for (;;) {
    const answer = await httpCall(crlUrl);
    if (answer.status === 200) {
      const listed = crlSerials(answer.body);
      crlEntries = listed.size;
      const missing = [...wanted].filter((s) => !listed.has(s)).length;
      if (missing === 0) {
        crlMs = performance.now() - started;
        break;
      }
      process.stdout.write(`CRL: ${int(crlEntries)} entries, ${int(missing)} still missing\n`);
    }
    if (performance.now() - started > 900_000) throw new Error('the CRL never listed every revocation');
    await sleep(2_000);
  }
  const ocspUrl = `${system.pkiUrl}/v1/tenants/${tenantId}/ocsp`;
  const sample = serials.filter((_, i) => i % Math.max(1, Math.floor(serials.length / 200)) === 0);
  for (const serial of sample) {
    await untilOcspSays(ocspUrl, ocspRequestFor(caDer, serial), 'revoked', {
      pollMs: 500,
      deadline: started + 900_000,
      failure: `OCSP never said revoked for ${serial}`,
    });
  }
  const ocspMs = performance.now() - started;
  return {
    matched,
    jobMs,
    crlMs,
    ocspMs,
    totalMs: Math.max(jobMs, crlMs, ocspMs),
    crlEntries,
    ocspSampled: sample.length,
  };
}

/**
 * The serials a DER CRL lists, upper-case hex without leading zeros, read by `openssl crl`: the
 * library parser stops at 10,000 ASN.1 nodes (its defence against hostile input), a CRL of a few
 * thousand entries.
 */
function crlSerials(der: Buffer): Set<string> {
  const out = spawnSync('openssl', ['crl', '-inform', 'DER', '-noout', '-text'], {
    input: der,
    maxBuffer: 1 << 30,
  });
  if (out.status !== 0) throw new Error(`openssl crl: ${out.stderr.toString()}`);
  const serials = new Set<string>();
  for (const match of out.stdout.toString().matchAll(/Serial Number: ([0-9A-Fa-f]+)/g)) {
    serials.add(match[1].toUpperCase().replace(/^0+(?=.)/, ''));
  }
  return serials;
}

async function timed(api: Api, path: string): Promise<number> {
  const started = performance.now();
  const answer = await api.call('GET', path);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
  return performance.now() - started;
}

async function repeat(runs: number, call: () => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await call());
  return samples;
}

/** The cursor after `depth` certificates of the default order, walked in pages of 1,000. */
async function cursorAt(api: Api, depth: number): Promise<string> {
  let cursor = '';
  for (let seen = 0; seen < depth;) {
    const limit = Math.min(1000, depth - seen);
    const page = await api.call(
      'GET',
      `/v2/certificates?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (page.status !== 200) throw new Error(`walk: ${page.status}`);
    cursor = page.json.nextCursor as string;
    seen += limit;
    if (seen % 100_000 === 0) process.stdout.write(`walked ${int(seen)}\n`);
  }
  return cursor;
}

/**
 * What grew while streaming, from the system's own samples: the most of each measure over the
 * stream against its first sample (V8's committed heap, its young generation and large objects;
 * memory outside the heap).
 */
function memoryGrowth(samples: MemorySample[]): string {
  if (samples.length < 2) return '';
  const [first] = samples;
  const growth = (key: keyof MemorySample) => `+${mib(Math.max(...samples.map((s) => s[key])) - first[key])}`;
  return `; of it heap ${growth('heapTotal')} (young generation ${growth('newSpace')}, large objects ${growth('largeObjects')}), outside the heap ${growth('external')}`;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

/** Reads a streamed answer, counting lines (or JSON items), while sampling the system's RSS. */
function streamed(
  system: RunningSystem,
  token: string,
  path: string,
  accept: string,
): Promise<{ ms: number; rows: number; rssStart: number; rssMax: number; from: number; to: number }> {
  const from = Date.now();
  const rssStart = rssOf(system.pid);
  let rssMax = rssStart;
  const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssOf(system.pid))), 100);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${system.adminUrl}${path}`,
      { headers: { authorization: `Bearer ${token}`, accept } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
        let count = 0;
        // NDJSON and CSV: one line per row (CSV: minus the header); v1: one certificateId per item.
        const needle = Buffer.from(accept === 'application/json' ? '"certificateId"' : '\n');
        // The end of the previous chunk, so that a needle split between two chunks is counted.
        let tail = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          const text = Buffer.concat([tail, chunk]);
          for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) count++;
          tail = text.subarray(Math.max(text.length - needle.length + 1, 0));
        });
        res.on('end', () => {
          clearInterval(sampler);
          resolve({
            ms: performance.now() - started,
            rows: accept === 'text/csv' ? count - 1 : count,
            rssStart,
            rssMax,
            from,
            to: Date.now(),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One certificate through the API per CA, then copies of it by generate_series, in chunks. */
async function seed(
  databaseUrl: string,
  api: Api,
  bulkApi: Api,
  sizes: { total: number; others: number; otherTenants: number; bulk: number },
): Promise<number> {
  const first = await api.call('POST', '/v1/certificates', ISSUE_BODY);
  if (first.status !== 200) throw new Error(`issue: ${first.status} ${JSON.stringify(first.json)}`);
  const bulkFirst = sizes.bulk > 0 ? await bulkApi.call('POST', '/v1/certificates', ISSUE_BODY) : undefined;
  if (bulkFirst && bulkFirst.status !== 200) throw new Error(`issue: ${bulkFirst.status}`);
  return withClient(databaseUrl, async (client) => {
    const started = performance.now();
    // Bulk load as one would: the secondary indexes (the trigram one above all) are dropped and
    // built again once the rows are in, rather than updated row by row.
    const indexes: { name: string; def: string }[] = (
      await client.query(
        `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          WHERE i.indrelid = 'issuance.certificates'::regclass AND NOT i.indisunique AND NOT i.indisprimary`,
      )
    ).rows;
    for (const index of indexes) await client.query(`DROP INDEX issuance.${index.name}`);
    // The counters' triggers are off for the load and the counters taken once after it, as the
    // migrations that made them did.
    await client.query('ALTER TABLE issuance.certificates DISABLE TRIGGER USER');
    // Revoked: 1 in 100, but none in the bulk-revocation tenant.
    const insert = async (
      from: number,
      to: number,
      tenant: string | null,
      sourceId: string,
      revoked: boolean,
    ) => {
      // Serials as issuance makes them (first octet 0x01 to 0x7F): one starting 00 would be looked
      // up by the responder without its zero octet and answer `unknown`, stalling the OCSP samples.
      await client.query(
        `INSERT INTO issuance.certificates
           (id, tenant_id, ca_id, serial_number, client_id, common_name, organization, organizational_unit,
            country, certificate_der, usage, dns_names, must_staple, custom_extensions, not_before, not_after,
            issued_at, revoked_at, revocation_reason, revocation_reason_code, source)
         SELECT gen_random_uuid(), coalesce($4::uuid, c.tenant_id), c.ca_id, '7' || upper(substr(md5(c.id::text || i::text), 2)),
                'bench-' || (i % 1000), 'host-' || i || '.example.com', c.organization, c.organizational_unit,
                c.country, c.certificate_der,
                CASE WHEN i % 10 = 0 THEN 'Server' ELSE 'Client' END,
                ARRAY['host-' || i || '.example.com'], false, '[]'::jsonb, c.not_before,
                now() + make_interval(days => i % 730, secs => i % 86400),
                now() - make_interval(secs => i),
                CASE WHEN $5 AND i % 100 = 0 THEN now() - make_interval(secs => i) END,
                CASE WHEN $5 AND i % 100 = 0 THEN 'benchmark' END,
                CASE WHEN $5 AND i % 100 = 0 THEN 1 END, 'api'
           FROM issuance.certificates c, generate_series($2::int, $3::int) AS i
          WHERE c.id = $1`,
        [sourceId, from, to, tenant, revoked],
      );
    };
    const load = async (
      label: string,
      offset: number,
      count: number,
      tenant: string | null,
      sourceId: string,
      revoked: boolean,
    ) => {
      for (let from = 1; from <= count; from += CHUNK) {
        const to = Math.min(from + CHUNK - 1, count);
        await insert(offset + from, offset + to, tenant, sourceId, revoked);
        process.stdout.write(`seeded ${label} ${int(to)}\n`);
      }
    };
    const sourceId = first.json.certificateId as string;
    await load('measured tenant', 0, sizes.total - 1, null, sourceId, true);
    let offset = sizes.total;
    for (let t = 0; t < sizes.otherTenants && sizes.others > 0; t++) {
      const count =
        Math.floor(sizes.others / sizes.otherTenants) + (t < sizes.others % sizes.otherTenants ? 1 : 0);
      await load(`other tenant ${t + 1}`, offset, count, randomUUID(), sourceId, true);
      offset += count;
    }
    if (bulkFirst)
      await load('bulk tenant', offset, sizes.bulk - 1, null, bulkFirst.json.certificateId as string, false);
    for (const index of indexes) {
      await client.query(index.def);
      process.stdout.write(`built ${index.name}\n`);
    }
    await client.query('ALTER TABLE issuance.certificates ENABLE TRIGGER USER');
    await recount(client);
    await client.query('VACUUM ANALYZE issuance.certificates');
    return performance.now() - started;
  });
}

/** The counters the triggers keep, taken once after the load (what their migrations do). */
async function recount(client: Client): Promise<void> {
  await client.query(
    `INSERT INTO issuance.active_certificate_counts (tenant_id, unrevoked, counted_after)
     SELECT tenant_id, count(*) FILTER (WHERE revoked_at IS NULL AND not_after > now()), now()
       FROM issuance.certificates GROUP BY tenant_id
     ON CONFLICT (tenant_id) DO UPDATE SET unrevoked = EXCLUDED.unrevoked, counted_after = EXCLUDED.counted_after`,
  );
  const summaryCounts: unknown[] = (
    await client.query(`SELECT 1 FROM pg_proc WHERE proname = 'recount_inventory'`)
  ).rows;
  if (summaryCounts.length > 0) await client.query('SELECT issuance.recount_inventory()');
}

runMain(main);
