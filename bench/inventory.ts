/**
 * The certificate inventory at scale: `GET /v2/certificates` (a filtered first page, a `q`
 * search, a page at depth), `/summary`, `/export` and the streamed `GET /v1/certificates`, with
 * the store seeded through SQL (not the API): `--rows` certificates in one tenant and `--others`
 * in other tenants, on the embedded system (PGlite) and, when DATABASE_URL is set, on Postgres
 * (+ NATS when NATS_URL is set). Export: rows/s and the system process's resident memory.
 *
 *   node -r @swc-node/register bench/inventory.ts [--rows 1000000] [--others 0] [--runs 50] [--quick] [--no-record]
 */
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import {
  Api,
  adminApi,
  initializeCa,
  ISSUE_BODY,
  RunningSystem,
  startSystem,
  withClient,
} from './lib/system';
import { int, mib, ms, percentile } from './lib/stats';

const USAGE = `bench/inventory.ts: search, summary and export over a seeded inventory.
  --rows N     certificates in the measured tenant (default 1000000; --quick: 50000)
  --others N   certificates in other tenants (default 0)
  --runs N     calls of each timed request (default 50; --quick: 10)
  --modes M    embedded,postgres (default: embedded, and postgres when DATABASE_URL is set)
  --quick      smaller
  --no-record  do not append to bench/history`;

const CHUNK = 100_000;

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    rows: { type: 'string' },
    others: { type: 'string' },
    runs: { type: 'string' },
    modes: { type: 'string' },
  });
  const total = intOption(values.rows, 'rows', quick ? 50_000 : 1_000_000);
  const others = values.others === '0' ? 0 : intOption(values.others, 'others', 0);
  const runs = intOption(values.runs, 'runs', quick ? 10 : 50);
  const modes = (
    typeof values.modes === 'string'
      ? values.modes
      : process.env.DATABASE_URL
        ? 'embedded,postgres'
        : 'embedded'
  ).split(',') as ('embedded' | 'postgres')[];
  const machine = machineInfo();
  const rows: string[][] = [];
  const settings: string[] = [];
  const notes: string[] = [];

  for (const mode of modes) {
    process.stdout.write(`starting the system (${mode})… `);
    const system = await startSystem({ mode, exposeDatabase: mode === 'embedded' });
    process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
    try {
      const tenantId = randomUUID();
      const token = await system.token(tenantId);
      const api = adminApi(system, token);
      await initializeCa(system, api, tenantId);
      const seedMs = await seed(system.databaseUrl!, api, total, others);
      settings.push(`${system.description}: seeded ${int(total)} + ${int(others)} rows in ${ms(seedMs)}.`);
      const get = (path: string) => timed(api, path);
      const row = (what: string, samples: number[], extra = '') =>
        rows.push([
          system.description,
          what,
          ms(percentile(samples, 50)),
          `**${ms(percentile(samples, 99))}**`,
          extra,
        ]);

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
      const deep = await cursorAt(api, Math.max(total - 100, 0));
      row(
        `page at depth ${int(Math.max(total - 100, 0) / 100)} (limit 100)`,
        await repeat(runs, () => get(`/v2/certificates?limit=100&cursor=${encodeURIComponent(deep)}`)),
      );
      row('summary', await repeat(runs, () => get('/v2/certificates/summary')));
      for (const [what, path, accept] of [
        ['export, NDJSON', '/v2/certificates/export', 'application/x-ndjson'],
        ['export, CSV', '/v2/certificates/export', 'text/csv'],
        ['`GET /v1/certificates` (streamed)', '/v1/certificates', 'application/json'],
      ] as const) {
        const result = await streamed(system, token, path, accept);
        rows.push([
          system.description,
          what,
          ms(result.ms),
          '',
          `${int(result.rows)} rows, **${int(result.rows / (result.ms / 1000))} rows/s**, RSS ${mib(result.rssStart)} → max ${mib(result.rssMax)}`,
        ]);
      }
    } finally {
      await system.stop();
    }
  }
  report(
    {
      title: `certificate inventory over ${int(total)} certificates in one tenant (+ ${int(others)} in others)`,
      command: '`npm run bench -- inventory` (`node -r @swc-node/register bench/inventory.ts`)',
      machine,
      settings: [
        ...settings,
        'Seeded with generate_series copying one certificate issued through the API, the secondary indexes and the plan-limit trigger off during the load, indexes built and counts taken after it (unique serials and ids; commonName host-<i>.example.com; DNS SAN the same; 1,000 client ids; usage Client, every tenth Server; notAfter spread over 730 days; 1% revoked), then VACUUM ANALYZE.',
        `Timed calls one at a time, ${runs} each, p50 and p99 of the whole HTTP exchange (gateway included). The depth page: the cursor reached by walking pages of 1,000, then pages of 100 asked from it. Export and v1 list: the body read and counted as it streams; RSS of the system process sampled every 100 ms.`,
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
): Promise<{ ms: number; rows: number; rssStart: number; rssMax: number }> {
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
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One certificate through the API, then copies of it by generate_series, in chunks. */
async function seed(databaseUrl: string, api: Api, total: number, others: number): Promise<number> {
  const first = await api.call('POST', '/v1/certificates', ISSUE_BODY);
  if (first.status !== 200) throw new Error(`issue: ${first.status} ${JSON.stringify(first.json)}`);
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
    // The plan-limit counter's per-row trigger would update one row per certificate in a single
    // transaction (a version chain that grows with each): it is off for the load and the counts
    // are taken once after it, as the migration that made the counter did.
    await client.query('ALTER TABLE issuance.certificates DISABLE TRIGGER certificates_count_active');
    const insert = async (from: number, to: number, tenant: string | null) => {
      await client.query(
        `INSERT INTO issuance.certificates
           (id, tenant_id, ca_id, serial_number, client_id, common_name, organization, organizational_unit,
            country, certificate_der, usage, dns_names, must_staple, custom_extensions, not_before, not_after,
            issued_at, revoked_at, revocation_reason, revocation_reason_code, source)
         SELECT gen_random_uuid(), coalesce($4::uuid, c.tenant_id), c.ca_id, upper(md5(c.id::text || i::text)),
                'bench-' || (i % 1000), 'host-' || i || '.example.com', c.organization, c.organizational_unit,
                c.country, c.certificate_der,
                CASE WHEN i % 10 = 0 THEN 'Server' ELSE 'Client' END,
                ARRAY['host-' || i || '.example.com'], false, '[]'::jsonb, c.not_before,
                now() + make_interval(days => i % 730, secs => i % 86400),
                now() - make_interval(secs => i),
                CASE WHEN i % 100 = 0 THEN now() - make_interval(secs => i) END,
                CASE WHEN i % 100 = 0 THEN 'benchmark' END,
                CASE WHEN i % 100 = 0 THEN 1 END, 'api'
           FROM issuance.certificates c, generate_series($2::int, $3::int) AS i
          WHERE c.id = $1`,
        [first.json.certificateId, from, to, tenant],
      );
    };
    for (let from = 1; from < total; from += CHUNK) {
      await insert(from, Math.min(from + CHUNK - 1, total - 1), null);
      process.stdout.write(`seeded ${int(Math.min(from + CHUNK - 1, total - 1))}\n`);
    }
    for (let from = 1; from <= others; from += CHUNK) {
      await insert(total + from, total + Math.min(from + CHUNK - 1, others), randomUUID());
      process.stdout.write(`seeded others ${int(Math.min(from + CHUNK - 1, others))}\n`);
    }
    for (const index of indexes) {
      await client.query(index.def);
      process.stdout.write(`built ${index.name}\n`);
    }
    await client.query('ALTER TABLE issuance.certificates ENABLE TRIGGER certificates_count_active');
    await client.query(
      `INSERT INTO issuance.active_certificate_counts (tenant_id, unrevoked, counted_after)
       SELECT tenant_id, count(*) FILTER (WHERE revoked_at IS NULL AND not_after > now()), now()
         FROM issuance.certificates GROUP BY tenant_id
       ON CONFLICT (tenant_id) DO UPDATE SET unrevoked = EXCLUDED.unrevoked, counted_after = EXCLUDED.counted_after`,
    );
    await client.query('VACUUM ANALYZE issuance.certificates');
    return performance.now() - started;
  });
}

runMain(main);
