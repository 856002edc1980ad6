/**
 * Listing at scale: `GET /v1/certificates` and `GET /v1/certificates/expiring?days=30` with
 * 100,000 certificates in one tenant, against the same queries run directly with `psql`.
 *
 * Needs DATABASE_URL (a Postgres server where it may create and drop a database): the system runs
 * on a throwaway database there, one certificate is issued through the API, and the rest are
 * inserted with generate_series, copying that certificate's DER and fields (unique serials, expiry
 * spread over two years, 1% revoked). Without DATABASE_URL it says so and skips.
 *
 *   DATABASE_URL=postgres://… node -r @swc-node/register bench/list.ts [--rows 100000] [--runs 5] [--quick] [--no-record]
 */
import { randomUUID } from 'node:crypto';
import { benchArgs, intOption } from './lib/args';
import { httpCall, HttpAnswer } from './lib/http-load';
import { machineInfo } from './lib/machine';
import { onPath, runCommand, runMain } from './lib/proc';
import { report } from './lib/report';
import {
  adminApi,
  Api,
  initializeCa,
  ISSUE_BODY,
  RunningSystem,
  startSystem,
  withClient,
} from './lib/system';
import { int, median, ms, ratio } from './lib/stats';

const USAGE = `bench/list.ts: list and expiring over 100,000 certificates, API against psql (needs DATABASE_URL).
  --rows N     certificates in the tenant (default 100000; --quick: 10000)
  --runs N     calls of each, median reported (default 5; --quick: 2)
  --quick      smaller
  --no-record  do not append to bench/history`;

const COLUMNS = 'id, tenant_id, client_id, common_name, serial_number, issued_at, not_after, revoked_at';

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, { rows: { type: 'string' }, runs: { type: 'string' } });
  if (!process.env.DATABASE_URL) {
    process.stdout.write(
      'bench/list.ts: skipped: DATABASE_URL is not set. This benchmark needs a Postgres server where it may\n' +
        'create a throwaway database (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres).\n',
    );
    return;
  }
  const total = intOption(values.rows, 'rows', quick ? 10_000 : 100_000);
  const runs = intOption(values.runs, 'runs', quick ? 2 : 5);
  const machine = machineInfo();
  const hasPsql = await onPath('psql');
  // Always on the in-process transport; also on NATS when NATS_URL is set (the answer crosses it).
  const transports = process.env.NATS_URL ? [false, true] : [false];
  const rows: string[][] = [];
  const ratioRows: string[][] = [];
  const systems: string[] = [];
  const notes: string[] = [];
  let insertMs = NaN;
  const answerSize = new Map<string, number>();

  for (const nats of transports) {
    process.stdout.write(`starting the system (postgres, ${nats ? 'NATS' : 'in-process transport'})… `);
    const system = await startSystem({ mode: 'postgres', nats });
    process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
    systems.push(system.description);
    const tenantId = randomUUID();
    const token = await system.token(tenantId);
    const api = adminApi(system, token);
    await initializeCa(system, api, tenantId);
    insertMs = await fillTenant(system.databaseUrl!, api, total);

    const listSql = `SELECT ${COLUMNS} FROM issuance.certificates WHERE tenant_id = '${tenantId}' ORDER BY issued_at DESC, id`;
    const expiringSql =
      `SELECT ${COLUMNS} FROM issuance.certificates WHERE tenant_id = '${tenantId}' AND revoked_at IS NULL ` +
      `AND not_after > now() AND not_after <= now() + interval '30 days' ORDER BY not_after, id`;
    const cases = [
      { name: 'list', path: '/v1/certificates', sql: listSql },
      { name: 'expiring, days=30', path: '/v1/certificates/expiring?days=30', sql: expiringSql },
    ];
    for (const c of cases) {
      const apiMs: number[] = [];
      const psqlWall: number[] = [];
      const psqlTiming: number[] = [];
      let count = NaN;
      let bytes = NaN;
      let psqlRows = NaN;
      let failure: string | undefined;
      if (!system.alive()) {
        failure = 'not measured: the system process had already exited (see the call above)';
        notes.push(`\`GET ${c.path}\` on ${system.description}: ${failure}`);
      }
      for (let run = 0; run < runs; run++) {
        if (!failure) {
          const started = performance.now();
          const answer = await httpCall(`${system.adminUrl}${c.path}`, {
            headers: { Authorization: `Bearer ${token}` },
            timeoutMs: 300_000,
          }).catch((error: Error) => error);
          const elapsed = performance.now() - started;
          if (answer instanceof Error || answer.status !== 200) {
            // A broken connection may mean the system is going down: give it a moment to exit.
            for (let i = 0; i < 40 && answer instanceof Error && system.alive(); i++) {
              await new Promise((r) => setTimeout(r, 50));
            }
            failure = describeFailure(system, answer);
            const size = answerSize.get(c.name);
            const sizeNote =
              size === undefined
                ? ''
                : ` (the same answer is ${(size / 2 ** 20).toFixed(1)} MiB of JSON on the in-process transport)`;
            notes.push(`\`GET ${c.path}\` on ${system.description}: ${failure}${sizeNote}`);
            process.stdout.write(`${c.name}: FAILED: ${failure}\n`);
          } else {
            apiMs.push(elapsed);
            if (run === 0) {
              count = (JSON.parse(answer.body.toString()) as { certificates: unknown[] }).certificates.length;
              bytes = answer.body.length;
              answerSize.set(c.name, bytes);
            }
          }
        }
        if (hasPsql) {
          // -A -t: unaligned tuples only; \timing: psql's own time for the query (send, execute, receive).
          const result = await runCommand('psql', [
            system.databaseUrl!,
            '-X',
            '-A',
            '-t',
            '-c',
            '\\timing on',
            '-c',
            c.sql,
          ]);
          if (result.code !== 0) throw new Error(`psql: ${result.stderr}`);
          psqlWall.push(result.ms);
          const timing = /Time: ([\d.]+) ms/.exec(result.stdout);
          psqlTiming.push(timing ? Number(timing[1]) : NaN);
          psqlRows = result.stdout.split('\n').filter((line) => line.includes('|')).length;
        }
        process.stdout.write(
          `${c.name} run ${run + 1}/${runs}: API ${failure ? 'failed' : ms(apiMs[run])}${hasPsql ? `, psql ${ms(psqlWall[run])}` : ''}\n`,
        );
      }
      if (!failure && hasPsql && psqlRows !== count) {
        throw new Error(`${c.name}: the API returned ${count} rows, psql ${psqlRows}`);
      }
      const apiTime = median(apiMs);
      const wall = median(psqlWall);
      const timing = median(psqlTiming);
      const transport = nats ? 'NATS' : 'in-process';
      rows.push([
        transport,
        `\`GET ${c.path}\``,
        int(failure ? psqlRows : count),
        failure ? 'n/a' : `${(bytes / 2 ** 20).toFixed(1)} MiB`,
        failure?.startsWith('not measured') ? 'not measured' : failure ? '**failed**' : `**${ms(apiTime)}**`,
        failure ? 'n/a' : int(count / (apiTime / 1000)),
        hasPsql ? ms(wall) : 'n/a',
        hasPsql ? ms(timing) : 'n/a',
      ]);
      ratioRows.push([
        transport,
        c.name,
        failure ? 'n/a' : `**${ratio(apiTime, wall)}**`,
        failure ? 'n/a' : ratio(apiTime, timing),
      ]);
    }
    await system.stop();
  }

  report(
    {
      title: `list and expiring over ${int(total)} certificates in one tenant, API vs psql`,
      command: '`DATABASE_URL=… npm run bench -- list` (`node -r @swc-node/register bench/list.ts`)',
      machine,
      settings: [
        `Systems: ${systems.join('; ')}. Each: one tenant CA; one certificate issued through the API, ${int(total - 1)} more rows inserted with generate_series copying its DER and fields (unique serials; notAfter spread evenly over the next 730 days; issuedAt one second apart; 1% revoked), then ANALYZE (the insert took ${ms(insertMs)}).`,
        `API: one \`GET\` at a time on a fresh connection, the whole JSON body read (the list is not paginated: every certificate of the tenant in one answer); ${runs} calls each, median.`,
        'Peer: the same SQL the issuance service runs (summary columns, same WHERE and ORDER BY; `now()` in place of bound timestamps) with `psql -X -A -t`, output read through a pipe; "psql process" is the wall time of the whole psql process, "psql \\timing" psql\'s own figure for sending the query and receiving all rows. Row counts of API and psql checked equal.',
      ],
      tables: [
        {
          headers: [
            'transport',
            'call',
            'rows',
            'JSON',
            'API time',
            'API rows/s',
            'psql process',
            'psql \\timing',
          ],
          rows,
          align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'],
        },
        {
          title: 'Ratios (time; above 1 means the API takes longer than the query alone):',
          headers: ['transport', 'call', 'API / psql process', 'API / psql \\timing'],
          rows: ratioRows,
          align: ['left', 'left', 'right', 'right'],
        },
      ],
      notes: [
        ...notes,
        ...(notes.some((n) => n.includes('MAX_PAYLOAD_EXCEEDED'))
          ? [
              'On NATS the whole list travels as one request/reply message, and NATS refuses messages over its max_payload (1 MiB by default): the issuance service fails to publish the reply and the process stops, taking the other services of `npm start` with it. At about 280 bytes of JSON per certificate that is reached at a few thousand certificates per tenant.',
            ]
          : []),
        ...(hasPsql ? [] : ['`psql` is not installed: no peer.']),
      ],
    },
    record,
  );
}

/** One certificate through the API, then `total - 1` copies of it with generate_series. */
async function fillTenant(databaseUrl: string, api: Api, total: number): Promise<number> {
  const first = await api.call('POST', '/v1/certificates', ISSUE_BODY);
  if (first.status !== 200) throw new Error(`issue: ${first.status} ${JSON.stringify(first.json)}`);
  process.stdout.write(`inserting ${int(total - 1)} rows with generate_series… `);
  const insertMs = await withClient(databaseUrl, async (client) => {
    const started = performance.now();
    await client.query(
      `INSERT INTO issuance.certificates
         (id, tenant_id, ca_id, serial_number, client_id, common_name, organization, organizational_unit,
          country, certificate_der, not_before, not_after, issued_at, revoked_at, revocation_reason,
          revocation_reason_code)
       SELECT gen_random_uuid(), c.tenant_id, c.ca_id, upper(md5(c.serial_number || i::text)),
              'bench-' || i, c.common_name, c.organization, c.organizational_unit, c.country,
              c.certificate_der, c.not_before,
              now() + make_interval(days => i % 730, secs => i % 86400),
              now() - make_interval(secs => i),
              CASE WHEN i % 100 = 0 THEN now() - make_interval(secs => i) END,
              CASE WHEN i % 100 = 0 THEN 'benchmark' END,
              CASE WHEN i % 100 = 0 THEN 1 END
         FROM issuance.certificates c, generate_series(1, $2::int) AS i
        WHERE c.id = $1`,
      [first.json.certificateId, total - 1],
    );
    await client.query('ANALYZE issuance.certificates');
    return performance.now() - started;
  });
  process.stdout.write(`${ms(insertMs)}\n`);
  return insertMs;
}

/** What went wrong with a call, in one line: the HTTP status, or why the connection broke. */
function describeFailure(system: RunningSystem, answer: Error | HttpAnswer): string {
  if (!(answer instanceof Error)) {
    return `HTTP ${answer.status}: ${answer.body.toString().replace(/\s+/g, ' ').slice(0, 200)}`;
  }
  if (system.alive()) return `${answer.message} (the system kept running)`;
  const cause = system
    .logTail()
    .split('\n')
    .find((line) => /^\s*[A-Za-z]*Error: /.test(line));
  return `${answer.message}: the system process exited${cause ? ` with \`${cause.trim()}\`` : ''}`;
}

runMain(main);
