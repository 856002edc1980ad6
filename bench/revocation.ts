/**
 * Revocation propagation: the time from `POST /v1/certificates/{id}/revoke` returning until our
 * OCSP responder answers `revoked` for that serial, and until the served CRL lists it; p50/p99
 * over 200 revocations, in a tenant whose CRL already holds 100,000 entries.
 *
 * With DATABASE_URL the system runs on a throwaway Postgres database and the 100,000 existing
 * revocations are inserted directly into the revocation ledger and the responder's status table
 * (generate_series); the first measured revocation then builds a CRL of all of them. Without
 * DATABASE_URL it runs embedded with only the measured revocations (said in the entry).
 *
 *   node -r @swc-node/register bench/revocation.ts [--revocations 200] [--existing 100000]
 *     [--interval-ms 100] [--quick] [--no-record]
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pemToDer, serialFromHex } from '@ca/pki';
import { benchArgs, intOption } from './lib/args';
import { httpCall } from './lib/http-load';
import { derTlv, ocspRequestFor, sleep, untilOcspSays } from './lib/ocsp-wait';
import { machineInfo } from './lib/machine';
import { mapPool } from '@ca/test-support';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import { adminApi, initializeCa, ISSUE_BODY, startSystem, withClient } from './lib/system';
import { int, ms, percentile } from './lib/stats';

const USAGE = `bench/revocation.ts: revoke → OCSP revoked and → CRL listing, p50/p99.
  --revocations N   measured revocations (default 200; --quick: 20)
  --existing N      revocations already in the tenant's CRL, Postgres only (default 100000; --quick: 1000)
  --interval-ms N   one revocation started every N ms (default 100)
  --quick           smaller
  --no-record       do not append to bench/history
  --cpu-prof DIR    run the system under \`node --cpu-prof\`, profiles written to DIR at its exit`;

const OCSP_POLL_MS = 10;
const CRL_POLL_MS = 25;
const TIMEOUT_MS = 60_000;

interface Pending {
  serial: string;
  /** INTEGER TLV of the serial, as it appears in the CRL's DER. */
  serialTlv: Buffer;
  revokedAt: number;
  ocspMs?: number;
  crlMs?: number;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    revocations: { type: 'string' },
    existing: { type: 'string' },
    'interval-ms': { type: 'string' },
    'cpu-prof': { type: 'string' },
  });
  const count = intOption(values.revocations, 'revocations', quick ? 20 : 200);
  const postgres = Boolean(process.env.DATABASE_URL);
  const existing = postgres ? intOption(values.existing, 'existing', quick ? 1_000 : 100_000) : 0;
  const intervalMs = intOption(values['interval-ms'], 'interval-ms', 100);
  const machine = machineInfo();
  const profileDir = typeof values['cpu-prof'] === 'string' ? resolve(values['cpu-prof']) : undefined;

  process.stdout.write(`starting the system (${postgres ? 'postgres' : 'embedded'})… `);
  const system = await startSystem({
    mode: postgres ? 'postgres' : 'embedded',
    nats: postgres,
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  process.stdout.write(`ready in ${int(system.readyMs)} ms\n`);
  const tenantId = randomUUID();
  const api = adminApi(system, await system.token(tenantId));
  const caDer = Buffer.from(pemToDer(await initializeCa(system, api, tenantId)));

  process.stdout.write(`issuing ${int(count)} certificates… `);
  const issued = await mapPool(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const answer = await api.call('POST', '/v1/certificates', { ...ISSUE_BODY, clientId: `revoke-${i}` });
      if (answer.status !== 200) throw new Error(`issue: ${answer.status} ${JSON.stringify(answer.json)}`);
      return { id: answer.json.certificateId as string, serial: answer.json.serialNumber as string };
    },
  );
  process.stdout.write('done\n');
  if (existing > 0) await insertExistingRevocations(system.databaseUrl!, tenantId, existing);

  const ocspUrl = `${system.pkiUrl}/v1/tenants/${tenantId}/ocsp`;
  const crlUrl = `${system.pkiUrl}/v1/tenants/${tenantId}/crl`;
  const requests = issued.map(({ serial }) => ocspRequestFor(caDer, serial));
  // Every certificate known to the responder before the clock starts (its issue event applied).
  await mapPool(requests, 4, (body) =>
    untilOcspSays(ocspUrl, body, 'good', {
      pollMs: 50,
      deadline: performance.now() + TIMEOUT_MS,
      failure: 'an issued certificate never answered good',
    }),
  );

  // One CRL poller for all pending revocations (conditional GET: 304 until a new CRL is served).
  const pending: Pending[] = [];
  let crlEntries = 0;
  let crlBytes = 0;
  let stopCrl = false;
  const crlPoller = (async () => {
    let etag: string | undefined;
    while (!stopCrl) {
      const answer = await httpCall(crlUrl, { headers: etag ? { 'If-None-Match': etag } : {} }).catch(
        () => undefined,
      );
      const at = performance.now();
      if (answer?.status === 200) {
        etag = answer.headers.etag as string;
        crlBytes = answer.body.length;
        for (const p of pending)
          if (p.crlMs === undefined && answer.body.indexOf(p.serialTlv) >= 0) p.crlMs = at - p.revokedAt;
      }
      await sleep(CRL_POLL_MS);
    }
  })();

  process.stdout.write(`revoking ${int(count)}, one every ${intervalMs} ms… `);
  const started = performance.now();
  await Promise.all(
    issued.map(async (cert, i) => {
      await sleep(i * intervalMs);
      const answer = await api.call('POST', `/v1/certificates/${cert.id}/revoke`, {
        reason: 'benchmark',
        reasonCode: 'KeyCompromise',
      });
      if (answer.status !== 200) throw new Error(`revoke: ${answer.status} ${JSON.stringify(answer.json)}`);
      const entry: Pending = {
        serial: cert.serial,
        serialTlv: integerTlv(cert.serial),
        revokedAt: performance.now(),
      };
      pending.push(entry);
      await untilOcspSays(ocspUrl, requests[i], 'revoked', {
        pollMs: OCSP_POLL_MS,
        deadline: entry.revokedAt + TIMEOUT_MS,
        failure: `${cert.serial}: never answered revoked`,
      });
      entry.ocspMs = performance.now() - entry.revokedAt;
    }),
  );
  while (pending.some((p) => p.crlMs === undefined)) {
    if (performance.now() - started > count * intervalMs + TIMEOUT_MS)
      throw new Error('some revocations never appeared in the served CRL');
    await sleep(50);
  }
  stopCrl = true;
  await crlPoller;
  process.stdout.write('done\n');
  if (postgres) {
    crlEntries = await withClient(system.databaseUrl!, async (c) => {
      const { rows } = await c.query<{ n: string }>(
        'SELECT count(*) AS n FROM revocation.revoked_certificates WHERE tenant_id = $1',
        [tenantId],
      );
      return Number(rows[0].n);
    });
  } else {
    crlEntries = count;
  }
  await system.stop();

  const ocsp = pending.map((p) => p.ocspMs!);
  const crl = pending.map((p) => p.crlMs!);
  const row = (what: string, values: number[], targetMs: number) => {
    const p99 = percentile(values, 99);
    return [
      what,
      ms(percentile(values, 50)),
      ms(p99),
      ms(Math.max(...values)),
      `${ms(targetMs)} p99`,
      p99 <= targetMs ? 'met' : `**missed** (${(p99 / targetMs).toFixed(1)}x)`,
    ];
  };
  const rows = [
    row('revoke returned → OCSP answers revoked', ocsp, 1_000),
    row('revoke returned → served CRL lists it', crl, 5_000),
  ];
  for (const r of rows) process.stdout.write(`${r.join('  ')}\n`);
  report(
    {
      title: 'revocation propagation to OCSP and to the served CRL',
      command: '`npm run bench -- revocation` (`node -r @swc-node/register bench/revocation.ts`)',
      machine,
      settings: [
        `System: ${system.description}; one tenant CA; ${int(count)} certificates issued through the admin API, then revoked through it (reasonCode KeyCompromise), one started every ${intervalMs} ms (${int(1000 / intervalMs)}/s), each timed from its revoke call returning.`,
        existing > 0
          ? `Existing entries: ${int(existing)} revocations inserted directly into \`revocation.revoked_certificates\` and \`ocsp.certificate_status\` before the first measured one, so every CRL built during the run lists ${int(existing)} + the measured ones (last served: ${int(crlEntries)} entries, ${(crlBytes / 1048576).toFixed(1)} MiB).`
          : `Existing entries: none (embedded mode; run with DATABASE_URL for 100,000). Last served CRL: ${int(crlEntries)} entries.`,
        `OCSP: each revoked serial polled every ${OCSP_POLL_MS} ms with a POST (SHA-1 CertID, no nonce) until it answers revoked. CRL: one poller, conditional GET every ${CRL_POLL_MS} ms, each new CRL searched for the serials' DER INTEGERs.`,
      ],
      tables: [
        {
          title: `Propagation over ${int(count)} revocations:`,
          headers: ['path', 'p50', 'p99', 'max', 'target', 'result'],
          rows,
          align: ['left', 'right', 'right', 'right', 'right', 'left'],
        },
      ],
      notes: [
        'Targets: OCSP within 1 s p99, CRL within 5 s p99, at 100,000 existing entries. Poll intervals add up to their length to each figure.',
      ],
    },
    record,
  );
}

/** Revocations already in the tenant's ledger and in the responder's status table. */
async function insertExistingRevocations(databaseUrl: string, tenantId: string, n: number): Promise<void> {
  process.stdout.write(`inserting ${int(n)} existing revocations… `);
  await withClient(databaseUrl, async (client) => {
    await client.query(
      // The tenant has one CRL issuer (its one CA): the entries go on that CA's CRL.
      `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
       SELECT $1, c.ca_id, upper(md5('existing' || i::text)), gen_random_uuid(), now() - make_interval(secs => i), 1
         FROM generate_series(1, $2::int) AS i, revocation.crl_issuers c WHERE c.tenant_id = $1`,
      [tenantId, n],
    );
    await client.query(
      `INSERT INTO ocsp.certificate_status (tenant_id, ca_id, serial_number, not_after, revoked_at, reason_code)
       SELECT $1, c.ca_id, upper(md5('existing' || i::text)), now() + interval '1 year', now() - make_interval(secs => i), 1
         FROM generate_series(1, $2::int) AS i, ocsp.ca_certificates c WHERE c.tenant_id = $1`,
      [tenantId, n],
    );
  });
  process.stdout.write('done\n');
}

/** The serial as the DER INTEGER of a CRL entry, to find it in the served CRL's bytes. */
function integerTlv(serialHex: string): Buffer {
  return derTlv(0x02, serialFromHex(serialHex));
}

runMain(main);
