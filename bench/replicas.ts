/**
 * What replicas sharing one Postgres pay per request, before and after the per-tenant counter
 * row, the per-request CRL check and the per-tenant audit chains:
 *
 * - Plan-limit admission of one issuance with N Active certificates in the tenant: the count of
 *   Active certificates under the tenant lock (before) against the counter row with its expiry
 *   range (after, `lockAndReadStandings`), both in one transaction on the same database.
 * - The check a responder now makes before every CRL answer (`CrlStore.find` with the CRL in
 *   memory: one primary-key read of the stored digest), against the in-memory answer alone.
 * - Audit appends, one entry per transaction, from 1 and 4 writers of different tenants.
 *
 * Needs DATABASE_URL (a Postgres server to make a throwaway database on).
 *
 *   node -r @swc-node/register bench/replicas.ts [--active 8000] [--runs 300] [--quick] [--no-record]
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openSchemaDataSource } from '@ca/persistence';
import { DataSource } from 'typeorm';
import { AuditStore, openGatewayDatabase } from '@ca/gateway/testing';
import { ISSUANCE_MIGRATIONS, lockAndReadStandings } from '@ca/issuance/testing';
import { CrlStore, OCSP_MIGRATIONS } from '@ca/ocsp-responder/testing';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { onCleanup, runMain } from './lib/proc';
import { report } from './lib/report';
import { int, median, ms, percentile, ratio } from './lib/stats';
import { createThrowawayDatabase } from './lib/system';

const USAGE = `bench/replicas.ts: per-request costs of replicas on one Postgres (DATABASE_URL).
  --active N   Active certificates in the tenant (default 8000; --quick: 2000)
  --runs N     timed runs per cell (default 300; --quick: 100)
  --quick      smaller
  --no-record  do not append to docs/benchmarks.md`;

/** The admission query before the counter row: every Active certificate counted under the lock. */
const COUNT_UNDER_LOCK = `SELECT (SELECT count(*)::int FROM issuance.certificates c
    WHERE c.tenant_id = $1 AND c.revoked_at IS NULL AND c.not_after > now()) AS active`;

async function timed(runs: number, work: () => Promise<unknown>): Promise<number[]> {
  return timedInside(runs, async () => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  });
}

/** Runs `work` (which measures itself, e.g. only the statements inside its transaction). */
async function timedInside(runs: number, work: () => Promise<number>): Promise<number[]> {
  for (let i = 0; i < Math.min(20, runs); i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await work());
  return times;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    active: { type: 'string' },
    runs: { type: 'string' },
  });
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    process.stderr.write('bench/replicas.ts needs DATABASE_URL (a Postgres server); skipped\n');
    return;
  }
  const active = intOption(values.active, 'active', quick ? 2000 : 8000);
  const runs = intOption(values.runs, 'runs', quick ? 100 : 300);
  const machine = machineInfo();
  const database = await createThrowawayDatabase(adminUrl);
  onCleanup(() => database.drop());

  // Plan-limit admission.
  const issuance = await openSchemaDataSource({
    url: database.url,
    schema: 'issuance',
    entities: [],
    migrations: ISSUANCE_MIGRATIONS,
  });
  onCleanup(() => issuance.destroy().then(() => undefined));
  const admissionRows: string[][] = [];
  for (const size of [active, active * 4]) {
    const [before, after] = await admissionCost(issuance, size, runs);
    admissionRows.push(
      [`${int(size)}`, 'count under the lock (before)', ms(median(before)), ms(percentile(before, 99)), ''],
      [
        `${int(size)}`,
        'counter row (after)',
        ms(median(after)),
        ms(percentile(after, 99)),
        ratio(median(after), median(before)),
      ],
    );
  }

  // CRL answers: the digest check before each one.
  const ocsp = await openSchemaDataSource({
    url: database.url,
    schema: 'ocsp',
    entities: [],
    migrations: OCSP_MIGRATIONS,
  });
  onCleanup(() => ocsp.destroy().then(() => undefined));
  const crlTenant = randomUUID();
  await ocsp.query(
    `INSERT INTO ocsp.crls (tenant_id, crl_number, this_update, next_update, der, sha256)
     VALUES ($1, 1, now(), now() + interval '1 day', $2, repeat('a', 64))`,
    [crlTenant, Buffer.alloc(1024 * 1024)],
  );
  const crls = new CrlStore(ocsp, undefined as never);
  await crls.find(crlTenant);
  const crlChecked = await timed(runs, () => crls.find(crlTenant));

  // Audit appends from writers of different tenants.
  const gateway = await openGatewayDatabase(database.url, 8);
  onCleanup(() => gateway.destroy().then(() => undefined));
  const audit = new AuditStore(gateway);
  const auditRows: string[][] = [];
  for (const writers of [1, 4]) {
    const tenants = Array.from({ length: writers }, () => randomUUID());
    const perWriter = Math.ceil(runs / writers) * 2;
    const start = performance.now();
    await Promise.all(
      tenants.map(async (tenant) => {
        for (let i = 0; i < perWriter; i++) {
          await audit.append([
            {
              occurredAt: new Date(),
              tenantId: tenant,
              principal: 'bench',
              action: 'certificate.list',
              resource: '/v1/certificates',
              result: 200,
              code: null,
              requestId: randomUUID(),
            },
          ]);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    auditRows.push([String(writers), int(perWriter * writers), int((perWriter * writers) / seconds)]);
  }
  const verified = await audit.verify();
  if (!verified.ok) throw new Error(`audit verify failed: ${verified.problem}`);

  report(
    {
      title: `replica hot spots: plan-limit admission at ${int(active)} Active certificates, CRL check, audit appends`,
      command: '`DATABASE_URL=… npm run bench -- replicas` (`node -r @swc-node/register bench/replicas.ts`)',
      machine,
      settings: [
        `Postgres ${database.serverVersion}, throwaway database; the client in this process (no HTTP).`,
        `Admission: a tenant with N Active certificates plus N revoked or expired ones (ANALYZEd); one transaction per run, timed from the lock to the standing read (BEGIN and COMMIT excluded); ${runs} runs after 20 warm-up. Before = the advisory lock and counting Active certificates (the statements issuance ran); after = lockAndReadStandings with the counter row (both exact: checked equal).`,
        `CRL: CrlStore.find of a 1 MiB CRL already in memory, ${runs} runs; before this change a replica answered from memory for 2 s without reading anything (about 0 ms) and could serve an older CRL than a sibling.`,
        'Audit: one entry per transaction, each writer its own tenant, so each its own chain.',
        'The machine was loaded by other work running at the same time: compare figures within this entry only.',
      ],
      tables: [
        {
          title: 'Plan-limit admission (the statements inside the transaction):',
          headers: ['Active', 'admission', 'median', 'p99', 'after / before'],
          rows: admissionRows,
          align: ['right', 'left', 'right', 'right', 'right'],
        },
        {
          title: 'CRL answer:',
          headers: ['per answer', 'median', 'p99'],
          rows: [['digest read before answering', ms(median(crlChecked)), ms(percentile(crlChecked, 99))]],
        },
        { title: 'Audit appends:', headers: ['writers', 'entries', 'entries/s'], rows: auditRows },
      ],
      notes: ['Not measured here: 1 vs 2 gateways issuing through the whole distributed system.'],
    },
    record,
  );
}

/** Before and after, per run, for a new tenant with `active` Active certificates. */
async function admissionCost(
  issuance: DataSource,
  active: number,
  runs: number,
): Promise<[number[], number[]]> {
  const tenantId = randomUUID();
  const caId = randomUUID();
  await issuance.query(
    `INSERT INTO issuance.certificate_authorities (id, tenant_id, common_name, organization, country, serial_number,
       certificate_der, not_before, not_after, key_custody, key_algorithm, public_key_spki, wrapped_key, created_at)
     VALUES ($1, $2, 'Root', 'Acme', 'US', '01', '\\x3000', now(), now() + interval '1 year', 'local', 'ECDSA-P256', '\\x3000', '\\x00', now())`,
    [caId, tenantId],
  );
  // Active ones, plus as many revoked and expired ones (which the count must skip).
  await issuance.query(
    `INSERT INTO issuance.certificates (id, tenant_id, ca_id, serial_number, client_id, common_name, organization,
       organizational_unit, country, certificate_der, not_before, not_after, issued_at, revoked_at)
     SELECT gen_random_uuid(), $1, $2, to_hex(i), 'c', 'cn', 'Acme', 'Ops', 'US', '\\x3000', now(),
            CASE WHEN i % 4 = 3 THEN now() - interval '1 day' ELSE now() + make_interval(days => 1 + i % 700) END,
            now(), CASE WHEN i % 4 = 2 THEN now() ELSE NULL END
       FROM generate_series(1, $3::int) AS i`,
    [tenantId, caId, active * 2],
  );
  await issuance.query('ANALYZE issuance.certificates');
  const before = await timedInside(runs, () =>
    issuance.transaction(async (manager) => {
      const start = performance.now();
      await manager.query('SELECT pg_advisory_xact_lock(1, hashtext($1))', [tenantId]);
      await manager.query(COUNT_UNDER_LOCK, [tenantId]);
      return performance.now() - start;
    }),
  );
  let counted = 0;
  const after = await timedInside(runs, () =>
    issuance.transaction(async (manager) => {
      const start = performance.now();
      counted = (await lockAndReadStandings(manager, [tenantId], 1)).get(tenantId)!.active;
      return performance.now() - start;
    }),
  );
  const [{ truth }] = await issuance.query(COUNT_UNDER_LOCK.replace('AS active', 'AS truth'), [tenantId]);
  if (counted !== truth) throw new Error(`counter row says ${counted}, the certificates ${truth}`);
  return [before, after];
}

runMain(main);
