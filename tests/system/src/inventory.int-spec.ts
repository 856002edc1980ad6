import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { derToPem, generateEcKeyPair, parseCrl } from '@ca/pki';
import { buildTestCsr } from '@ca/pki/testing';
import { Client } from 'pg';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually, http } from './support/http';
import { ocspStatus } from './support/pki';
import { expectProblem, expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The inventory (docs/api.md#search-certificates, #certificate-summary, #export-certificates):
 * every filter, the four orders, bounds, cursors bound to tenant and query, a cursor walk while
 * certificates are issued and revoked, the summary, the export's formats and tenant isolation.
 */
jest.setTimeout(400_000);

const modes = systemModes('inventory suite');

interface Item {
  certificateId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  status: string;
  issuedAt: string;
  expiresAt: string;
  daysUntilExpiration: number;
  subjectAlternativeNames: string[];
  usage: string;
  caId: string;
  source: string;
  revokedAt?: string;
}
interface Page {
  certificates: Item[];
  nextCursor: string | null;
}

async function csrPem(commonName: string): Promise<string> {
  return derToPem(await buildTestCsr(await generateEcKeyPair(false), commonName), 'CERTIFICATE REQUEST');
}

const withoutLeadingZeros = (serialHex: string) => serialHex.toUpperCase().replace(/^0+/, '');

/** Runs `jobs` with at most `width` at once. */
async function inBatches<T>(count: number, width: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += width) {
    const batch = Array.from({ length: Math.min(width, count - start) }, (_, k) => job(start + k));
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

describe.each(modes)('certificate inventory (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let other: TestTenant;
  let sql: Client;
  const ids: Record<string, string> = {};

  const search = async (query: string, who: TestTenant = tenant): Promise<Page> => {
    const answer = await who.get(`/v2/certificates${query ? `?${query}` : ''}`);
    if (answer.status !== 200) throw new Error(`search ${query}: ${answer.status} ${answer.text}`);
    return answer.json<Page>();
  };
  /** Every match, following nextCursor. */
  const searchAll = async (query: string, who: TestTenant = tenant): Promise<Item[]> => {
    const items: Item[] = [];
    let page = await search(`${query}&limit=1000`, who);
    items.push(...page.certificates);
    while (page.nextCursor) {
      page = await search(`${query}&limit=1000&cursor=${encodeURIComponent(page.nextCursor)}`, who);
      items.push(...page.certificates);
    }
    return items;
  };
  const idsOf = (items: Item[]) => items.map((i) => i.certificateId).sort();
  const named = (...names: string[]) => names.map((n) => ids[n]).sort();

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    [tenant, other] = await Promise.all([
      createTenant(sut, { commonName: 'Inventory Root' }),
      createTenant(sut, { commonName: 'Other Root' }),
    ]);
    const v1 = async (name: string, clientId: string, commonName: string) => {
      ids[name] = (await tenant.issue(issueBody({ clientId, commonName }))).certificateId;
    };
    await Promise.all([
      v1('alpha1', 'alpha-svc', 'Alpha-Client-One'),
      v1('alpha2', 'alpha-svc', 'alpha-client-two'),
      v1('beta1', 'beta-svc', 'beta-client'),
      v1('expired', 'gamma-svc', 'gamma-client'),
      v1('revoked', 'delta-svc', 'delta-client'),
    ]);
    const web = await tenant.issue(
      issueBody({
        clientId: 'web-edge',
        commonName: 'shop.inventory.example',
        usage: 'Server',
        subjectAlternativeNames: ['shop.inventory.example', 'checkout.inventory.example'],
        validityDays: 90,
      }),
      '/v2/certificates',
    );
    ids.web = web.certificateId;
    ids.both = (
      await tenant.issue(
        issueBody({
          clientId: 'mesh',
          commonName: 'mesh.inventory.example',
          usage: 'ClientAndServer',
          subjectAlternativeNames: ['mesh.inventory.example'],
          validityDays: 30,
        }),
        '/v2/certificates',
      )
    ).certificateId;
    ids.csr = (
      await tenant.issue(
        issueBody({ clientId: 'csr-client', commonName: 'csr-client', csrPem: await csrPem('x') }),
        '/v2/certificates',
      )
    ).certificateId;
    const revoked = await tenant.post(`/v1/certificates/${ids.revoked}/revoke`, {
      reason: 'test',
      reasonCode: 'Superseded',
    });
    expect(revoked.status).toBe(200);
    ids.otherAlpha = (
      await other.issue(issueBody({ clientId: 'alpha-svc', commonName: 'alpha-other' }))
    ).certificateId;
    // A certificate past its notAfter, without waiting for one: the row's date is moved back.
    sql = new Client({ connectionString: sut.databaseUrl });
    await sql.connect();
    await sql.query(`UPDATE issuance.certificates SET not_after = now() - interval '1 day' WHERE id = $1`, [
      ids.expired,
    ]);
  });

  afterAll(async () => {
    await sql?.end();
    await sut?.stop();
  });

  it('lists the items with their fields, newest first by default', async () => {
    const page = await search('');
    expect(page.nextCursor).toBeNull();
    expect(idsOf(page.certificates)).toEqual(
      named('alpha1', 'alpha2', 'beta1', 'expired', 'revoked', 'web', 'both', 'csr'),
    );
    const web = page.certificates.find((c) => c.certificateId === ids.web)!;
    expect(web).toEqual({
      certificateId: ids.web,
      clientId: 'web-edge',
      commonName: 'shop.inventory.example',
      serialNumber: expect.stringMatching(/^[0-9a-f]+$/i),
      status: 'Active',
      issuedAt: expect.any(String),
      expiresAt: expect.any(String),
      daysUntilExpiration: expect.any(Number),
      subjectAlternativeNames: expect.arrayContaining([
        'shop.inventory.example',
        'checkout.inventory.example',
      ]),
      usage: 'Server',
      caId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      source: 'api',
    });
    const revoked = page.certificates.find((c) => c.certificateId === ids.revoked)!;
    expect(revoked.status).toBe('Revoked');
    expect(Date.parse(revoked.revokedAt!)).not.toBeNaN();
    const issued = page.certificates.map((c) => c.issuedAt);
    expect(issued).toEqual([...issued].sort().reverse());
  });

  it('filters by each parameter alone', async () => {
    const all = (await search('')).certificates;
    const caId = all[0].caId;
    const web = all.find((c) => c.certificateId === ids.web)!;
    const cases: [string, string[]][] = [
      ['status=Active', named('alpha1', 'alpha2', 'beta1', 'web', 'both', 'csr')],
      ['status=Revoked', named('revoked')],
      ['status=Expired', named('expired')],
      ['status=Revoked,Expired', named('revoked', 'expired')],
      ['q=ALPHA-client', named('alpha1', 'alpha2')],
      ['q=checkout.inventory', named('web')],
      ['q=beta-svc', named('beta1')],
      [`q=${web.serialNumber.slice(4, 16).toUpperCase()}`, named('web')],
      ['q=100%25', []],
      ['clientId=alpha-svc', named('alpha1', 'alpha2')],
      ['clientId=alpha', []],
      [`caId=${caId}`, idsOf(all)],
      [`caId=${randomUUID()}`, []],
      ['usage=Server', named('web')],
      ['usage=ClientAndServer', named('both')],
      ['source=csr', named('csr')],
      ['source=acme', []],
      [`expiresBefore=${new Date().toISOString()}`, named('expired')],
      [
        `expiresAfter=${new Date(Date.now() + 100 * 86_400_000).toISOString()}`,
        named('alpha1', 'alpha2', 'beta1', 'revoked', 'csr'),
      ],
      [`issuedAfter=${new Date(Date.now() + 60_000).toISOString()}`, []],
      [`issuedBefore=${new Date(Date.now() + 60_000).toISOString()}`, idsOf(all)],
    ];
    for (const [query, expected] of cases) {
      expect([query, idsOf(await searchAll(query))]).toEqual([query, expected]);
    }
    expect(idsOf(await searchAll('source=api'))).toHaveLength(7);
  });

  it('combines filters with AND', async () => {
    expect(idsOf(await searchAll('clientId=alpha-svc&q=two'))).toEqual(named('alpha2'));
    expect(idsOf(await searchAll('status=Active&usage=Client&q=client'))).toEqual(
      named('alpha1', 'alpha2', 'beta1', 'csr'),
    );
    expect(idsOf(await searchAll('status=Revoked&clientId=alpha-svc'))).toEqual([]);
  });

  it('sorts in the four orders', async () => {
    const key = {
      issuedAt: (c: Item) => c.issuedAt + c.certificateId,
      expiresAt: (c: Item) => c.expiresAt + c.certificateId,
    };
    for (const [sort, field, descending] of [
      ['-issuedAt', 'issuedAt', true],
      ['issuedAt', 'issuedAt', false],
      ['expiresAt', 'expiresAt', false],
      ['-expiresAt', 'expiresAt', true],
    ] as const) {
      const items = (await search(`sort=${sort}`)).certificates;
      const keys = items.map(key[field]);
      const sorted = [...keys].sort();
      expect([sort, keys]).toEqual([sort, descending ? sorted.reverse() : sorted]);
    }
    expect((await search('sort=expiresAt')).certificates[0].certificateId).toBe(ids.expired);
  });

  it('refuses a bad parameter with 400 naming it', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['status=Valid', 'status'],
      ['status=Active&status=Revoked', 'status'],
      ['sort=commonName', 'sort'],
      ['usage=Both', 'usage'],
      ['source=web', 'source'],
      ['caId=not-a-uuid', 'caId'],
      ['expiresBefore=tomorrow', 'expiresBefore'],
      ['issuedAfter=2026-13-45', 'issuedAfter'],
      ['q=' + 'x'.repeat(257), 'q'],
      ['colour=blue', 'colour'],
      ['cursor=abc', 'cursor'],
    ];
    for (const [query, field] of cases) {
      expectValidationProblem(await tenant.get(`/v2/certificates?${query}`), [field]);
    }
  });

  it('binds a cursor to its tenant and query, and refuses one altered', async () => {
    const first = await search('limit=2');
    const cursor = first.nextCursor!;
    expect(cursor).toEqual(expect.any(String));
    const next = await search(`limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(next.certificates).toHaveLength(2);
    expect(next.certificates.map((c) => c.certificateId)).not.toContain(first.certificates[1].certificateId);
    const refused = [
      tenant.get(`/v2/certificates?limit=2&status=Active&cursor=${encodeURIComponent(cursor)}`),
      tenant.get(`/v2/certificates?limit=2&sort=issuedAt&cursor=${encodeURIComponent(cursor)}`),
      other.get(`/v2/certificates?limit=2&cursor=${encodeURIComponent(cursor)}`),
      tenant.get(
        `/v2/certificates?limit=2&cursor=${encodeURIComponent(cursor.slice(0, 4) + (cursor[4] === 'A' ? 'B' : 'A') + cursor.slice(5))}`,
      ),
    ];
    for (const answer of await Promise.all(refused)) expectValidationProblem(answer, ['cursor']);
    // Only the page size may change between pages.
    expect(
      (await search(`limit=5&cursor=${encodeURIComponent(cursor)}`)).certificates.length,
    ).toBeGreaterThan(0);
  });

  it('keeps tenants apart in the list, the summary and the export', async () => {
    expect(idsOf(await searchAll('clientId=alpha-svc', other))).toEqual([ids.otherAlpha]);
    expect((await other.get('/v2/certificates/summary')).json()).toEqual({
      active: 1,
      revoked: 0,
      expired: 0,
      expiringWithin: { '7': 0, '30': 0, '90': 0 },
    });
    const lines = (await other.get('/v2/certificates/export')).text.trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as Item).certificateId)).toEqual([ids.otherAlpha]);
  });

  it('summarizes by status and expiry window', async () => {
    const summary = (await tenant.get('/v2/certificates/summary')).json();
    // web: 90 days, both: 30 days; the rest 365 days.
    expect(summary).toEqual({
      active: 6,
      revoked: 1,
      expired: 1,
      expiringWithin: { '7': 0, '30': 1, '90': 2 },
    });
  });

  it('exports every match as NDJSON, or as CSV when asked', async () => {
    const ndjson = await tenant.get('/v2/certificates/export?status=Active&sort=expiresAt');
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const items = ndjson.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Item);
    expect(items).toEqual((await search('status=Active&sort=expiresAt')).certificates);

    const csv = await tenant.get('/v2/certificates/export?usage=Server', { headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = csv.text.trimEnd().split('\r\n');
    expect(rows[0]).toBe(
      'certificateId,clientId,commonName,serialNumber,status,issuedAt,expiresAt,daysUntilExpiration,subjectAlternativeNames,usage,caId,source,revokedAt',
    );
    expect(rows).toHaveLength(2);
    expect(rows[1].split(',')).toEqual([
      ids.web,
      'web-edge',
      'shop.inventory.example',
      expect.any(String),
      'Active',
      expect.any(String),
      expect.any(String),
      expect.any(String),
      expect.stringContaining('checkout.inventory.example'),
      'Server',
      expect.any(String),
      'api',
      '',
    ]);
    // Every field of every item, also a revoked one's revokedAt, as the search has it.
    const all = await searchAll('sort=issuedAt');
    const everything = (await tenant.get('/v2/certificates/export?sort=issuedAt')).text;
    expect(everything.endsWith('\n')).toBe(true);
    expect(
      everything
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Item),
    ).toEqual(all);
    const table = (
      await tenant.get('/v2/certificates/export?sort=issuedAt', { headers: { accept: 'text/csv' } })
    ).text
      .trimEnd()
      .split('\r\n')
      .slice(1);
    expect(table).toEqual(
      all.map((item) =>
        [
          item.certificateId,
          item.clientId,
          item.commonName,
          item.serialNumber,
          item.status,
          item.issuedAt,
          item.expiresAt,
          String(item.daysUntilExpiration),
          item.subjectAlternativeNames.join(' '),
          item.usage,
          item.caId,
          item.source,
          item.revokedAt ?? '',
        ].join(','),
      ),
    );
    expectValidationProblem(await tenant.get('/v2/certificates/export?limit=5'), ['limit']);
    expectValidationProblem(await tenant.get('/v2/certificates/export?status=Gone'), ['status']);
  });

  it('still answers GET /v1/certificates whole, in the specification shape', async () => {
    const answer = await tenant.get('/v1/certificates');
    expect(answer.status).toBe(200);
    const body = answer.json<{ certificates: Record<string, unknown>[] }>();
    expect(Object.keys(body)).toEqual(['certificates']);
    expect(body.certificates).toHaveLength(8);
    // The search's items, cut to the CertificateSummary fields, in the same (default) order.
    expect(body.certificates).toEqual(
      (await searchAll('')).map(
        ({
          certificateId,
          clientId,
          commonName,
          serialNumber,
          status,
          issuedAt,
          expiresAt,
          daysUntilExpiration,
        }) => ({
          certificateId,
          clientId,
          commonName,
          serialNumber,
          status,
          issuedAt,
          expiresAt,
          daysUntilExpiration,
        }),
      ),
    );
    expect(Object.keys(body.certificates[0]).sort()).toEqual([
      'certificateId',
      'clientId',
      'commonName',
      'daysUntilExpiration',
      'expiresAt',
      'issuedAt',
      'serialNumber',
      'status',
    ]);
  });

  it('walks hundreds of certificates exactly once while others are issued and revoked', async () => {
    const walked = await inBatches(
      240,
      12,
      async (i) =>
        (await tenant.issue(issueBody({ clientId: 'walk', commonName: `walk-${i}` }))).certificateId,
    );
    for (const [sort, limit] of [
      ['-issuedAt', 7],
      ['expiresAt', 11],
    ] as const) {
      const seen: string[] = [];
      let stop = false;
      // Issues and revokes in the same tenant while the walk goes on.
      const churn = (async () => {
        let n = 0;
        while (!stop) {
          const fresh = await tenant.issue(
            issueBody({ clientId: 'walk', commonName: `churn-${sort}-${n++}` }),
          );
          await tenant.post(`/v1/certificates/${walked[n % walked.length]}/revoke`, { reason: 'walk' });
          await tenant.post(`/v1/certificates/${fresh.certificateId}/revoke`, { reason: 'walk' });
        }
      })();
      try {
        let page = await search(`clientId=walk&sort=${sort}&limit=${limit}`);
        seen.push(...page.certificates.map((c) => c.certificateId));
        while (page.nextCursor) {
          page = await search(
            `clientId=walk&sort=${sort}&limit=${limit}&cursor=${encodeURIComponent(page.nextCursor)}`,
          );
          seen.push(...page.certificates.map((c) => c.certificateId));
        }
      } finally {
        stop = true;
        await churn;
      }
      expect(new Set(seen).size).toBe(seen.length);
      const inWalk = new Set(seen);
      expect(walked.filter((id) => !inWalk.has(id))).toEqual([]);
    }
  });

  it('counts exactly at the edges of the expiry windows, whatever day they fall on', async () => {
    const edge = await inBatches(3, 3, (i) =>
      other.issue(issueBody({ clientId: 'edge', commonName: `edge-${i}` })),
    );
    const expireAt = async (index: number, interval: string) =>
      sql.query(`UPDATE issuance.certificates SET not_after = now() + $2::interval WHERE id = $1`, [
        edge[index].certificateId,
        interval,
      ]);
    await expireAt(0, '30 seconds');
    await expireAt(1, '7 days -60 seconds');
    await expireAt(2, '7 days 60 seconds');
    const summary = async () => (await other.get('/v2/certificates/summary')).json();
    // otherAlpha (365 days) and the three.
    expect(await summary()).toEqual({
      active: 4,
      revoked: 0,
      expired: 0,
      expiringWithin: { '7': 2, '30': 3, '90': 3 },
    });
    await expireAt(0, '-1 second');
    await other.post(`/v1/certificates/${edge[2].certificateId}/revoke`, {
      reason: 'edge',
      reasonCode: 'Superseded',
    });
    expect(await summary()).toEqual({
      active: 2,
      revoked: 1,
      expired: 1,
      expiringWithin: { '7': 1, '30': 1, '90': 1 },
    });
  });

  it('revokes every match by a job: dry run, count guard, progress, each one in OCSP, other tenants kept out', async () => {
    const bulk = await inBatches(25, 12, async (i) =>
      tenant.issue(issueBody({ clientId: 'bulk', commonName: `bulk-${i}` })),
    );
    const body = {
      filter: { clientId: 'bulk' },
      reason: 'decommissioned',
      reasonCode: 'CessationOfOperation',
    };
    const dry = await tenant.post('/v2/certificates/revoke-matching', { ...body, dryRun: true });
    expect([dry.status, dry.json()]).toEqual([200, { matched: 25 }]);
    expect(idsOf(await searchAll('clientId=bulk&status=Revoked'))).toEqual([]);

    const guarded = await tenant.post('/v2/certificates/revoke-matching', { ...body, expectedCount: 24 });
    expectProblem(guarded, 409, 'COUNT_MISMATCH');
    expect(idsOf(await searchAll('clientId=bulk&status=Revoked'))).toEqual([]);
    expectValidationProblem(
      await tenant.post('/v2/certificates/revoke-matching', {
        ...body,
        filter: { status: 'Gone' },
        dryRun: true,
      }),
      ['filter.status'],
    );
    expectValidationProblem(await tenant.post('/v2/certificates/revoke-matching', body), ['expectedCount']);
    const writer = await tenant.tokenWithScope('certificates:write');
    expectProblem(
      await tenant.post('/v2/certificates/revoke-matching', { ...body, dryRun: true }, { bearer: writer }),
      403,
      'FORBIDDEN',
    );

    const summaryBefore = (await tenant.get('/v2/certificates/summary')).json<{
      revoked: number;
      active: number;
    }>();
    const requestId = `bulk-${randomUUID()}`;
    const started = await tenant.post(
      '/v2/certificates/revoke-matching',
      { ...body, expectedCount: 25 },
      { headers: { 'x-request-id': requestId } },
    );
    expect(started.status).toBe(202);
    const { jobId, matched } = started.json<{ jobId: string; matched: number }>();
    expect(matched).toBe(25);
    const finished = await eventually(
      async () => {
        // A poll answered 503 (the machine too busy to answer in time) is polled again.
        const answer = await tenant.get(`/v2/jobs/${jobId}`);
        if (answer.status !== 200) return undefined;
        const job = answer.json<{ status: string }>();
        return job.status === 'running' ? undefined : job;
      },
      60_000,
      'the job to finish',
    );
    expect(finished).toEqual({
      jobId,
      kind: 'revoke-matching',
      status: 'done',
      total: 25,
      done: 25,
      failed: 0,
    });
    expect(idsOf(await searchAll('clientId=bulk&status=Revoked'))).toEqual(
      bulk.map((c) => c.certificateId).sort(),
    );
    // A burst of revocations: OCSP is given longer than one revocation needs (timing is bench/'s).
    await Promise.all(
      bulk.map((c) =>
        eventually(
          async () => {
            const status = await ocspStatus(sut.pkiUrl, tenant.tenantId, tenant.caDer, c.serialNumber);
            return status.kind === 'revoked' ? status : undefined;
          },
          30_000,
          `OCSP answering revoked for ${c.serialNumber}`,
        ),
      ),
    );
    expectProblem(await other.get(`/v2/jobs/${jobId}`), 404, 'NOT_FOUND');
    // Each revocation audited as a single one is: its own entry, the caller and the call's request id.
    const audited = await eventually(
      async () => {
        const { rows } = await sql.query<{ resource: string; principal: string; result: number }>(
          `SELECT resource, principal, result FROM gateway.audit_events
            WHERE tenant_id = $1 AND action = 'certificate.revoke' AND request_id = $2`,
          [tenant.tenantId, requestId],
        );
        return rows.length >= 25 ? rows : undefined;
      },
      30_000,
      'an audit entry per revoked certificate',
    );
    expect(audited.map((r) => r.resource).sort()).toEqual(
      bulk.map((c) => `/v1/certificates/${c.certificateId}/revoke`).sort(),
    );
    expect(new Set(audited.map((r) => `${r.principal} ${r.result}`)).size).toBe(1);
    expect(audited[0].result).toBe(200);
    // The summary's counters moved with every revocation of the job.
    expect((await tenant.get('/v2/certificates/summary')).json()).toMatchObject({
      revoked: summaryBefore.revoked + 25,
      active: summaryBefore.active - 25,
    });
    const again = await tenant.post('/v2/certificates/revoke-matching', { ...body, dryRun: true });
    expect(again.json()).toEqual({ matched: 0 });
  });

  it("lists a job's revocations in the served CRL by the direct paths with the stream held back, and records each once", async () => {
    const batch = await inBatches(20, 10, async (i) =>
      tenant.issue(issueBody({ clientId: 'bulk-direct', commonName: `direct-${i}` })),
    );
    const serials = batch.map((c) => c.serialNumber.toUpperCase());
    const removals = async () =>
      (
        await sql.query<{ removed: string }>(
          'SELECT entries_removed::text AS removed FROM revocation.crl_issuers WHERE tenant_id = $1',
          [tenant.tenantId],
        )
      ).rows.map((r) => r.removed);
    const removalsBefore = await removals();
    // The stream's copies held back: an outbox relay publishes nothing while a row is claimed by
    // another relay, and every revocation (issuance) and CRL announcement (revocation) recorded
    // from now on is; only the direct paths are left (docs/architecture.md#bulk-revocation-direct-path).
    const holder = randomUUID();
    const outboxes = ['issuance.outbox', 'revocation.outbox'];
    await sql.query(`CREATE FUNCTION public.hold_stream_copies() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.type IN ('certificate.revoked', 'crl.published') THEN
          NEW.claimed_by := '${holder}'; NEW.claimed_until := now() + interval '1 hour';
        END IF;
        RETURN NEW;
      END $$`);
    for (const outbox of outboxes) {
      await sql.query(
        `CREATE TRIGGER hold_stream_copies BEFORE INSERT ON ${outbox} FOR EACH ROW EXECUTE FUNCTION public.hold_stream_copies()`,
      );
    }
    let eventIds: string[];
    try {
      const started = await tenant.post('/v2/certificates/revoke-matching', {
        filter: { clientId: 'bulk-direct' },
        reason: 'decommissioned',
        reasonCode: 'CessationOfOperation',
        expectedCount: 20,
      });
      expect(started.status).toBe(202);
      const { jobId } = started.json<{ jobId: string }>();
      await eventually(
        async () => {
          const answer = await tenant.get(`/v2/jobs/${jobId}`);
          return answer.status === 200 && answer.json<{ status: string }>().status === 'done'
            ? true
            : undefined;
        },
        60_000,
        'the job to finish',
      );
      await eventually(
        async () => {
          const answer = await http(`${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/crl`);
          if (answer.status !== 200) return undefined;
          const listed = new Set(
            parseCrl(new Uint8Array(answer.body)).entries.map((e) => withoutLeadingZeros(e.serialNumberHex)),
          );
          return serials.every((serial) => listed.has(withoutLeadingZeros(serial))) ? true : undefined;
        },
        30_000,
        "the served CRL listing the job's revocations",
      );
      // None of them has reached the stream, and no refused CRL corrected the ledger: the direct path did it.
      const { rows } = await sql.query<{ id: string; published: boolean }>(
        `SELECT id::text, published_at IS NOT NULL AS published FROM issuance.outbox
          WHERE type = 'certificate.revoked' AND tenant_id = $1 AND payload->>'certificateId' = ANY($2::text[])`,
        [tenant.tenantId, batch.map((c) => c.certificateId)],
      );
      expect(rows.map((r) => r.published)).toEqual(Array(20).fill(false));
      eventIds = rows.map((r) => r.id);
      const announced = await sql.query(
        `SELECT 1 FROM revocation.outbox WHERE type = 'crl.published' AND tenant_id = $1 AND claimed_by = $2
            AND published_at IS NULL`,
        [tenant.tenantId, holder],
      );
      expect(announced.rows.length).toBeGreaterThan(0);
      expect(await removals()).toEqual(removalsBefore);
    } finally {
      for (const outbox of outboxes) {
        await sql.query(`DROP TRIGGER hold_stream_copies ON ${outbox}`);
        await sql.query(
          `UPDATE ${outbox} SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = $1`,
          [holder],
        );
      }
      await sql.query('DROP FUNCTION public.hold_stream_copies()');
    }
    // The stream's copies now reach revocation, in the tenant's partition ahead of one more
    // revocation (a single one, which takes only the stream's path): once that is in the ledger,
    // the copies were handled, and changed nothing.
    const last = await tenant.issue(issueBody({ clientId: 'after-direct', commonName: 'after-direct' }));
    expect(
      (await tenant.post(`/v1/certificates/${last.certificateId}/revoke`, { reason: 'test' })).status,
    ).toBe(200);
    await eventually(
      async () => {
        const { rows } = await sql.query(
          'SELECT 1 FROM revocation.revoked_certificates WHERE tenant_id = $1 AND upper(serial_number) = $2',
          [tenant.tenantId, last.serialNumber.toUpperCase()],
        );
        return rows.length === 1 ? true : undefined;
      },
      60_000,
      'the single revocation in the ledger, behind the stream copies',
    );
    const recorded = await sql.query<{ serial: string; n: string }>(
      `SELECT upper(serial_number) AS serial, count(*)::text AS n FROM revocation.revoked_certificates
        WHERE tenant_id = $1 AND upper(serial_number) = ANY($2::text[]) GROUP BY 1`,
      [tenant.tenantId, serials],
    );
    expect(recorded.rows.map((r) => `${r.serial} ${r.n}`).sort()).toEqual(
      serials.map((s) => `${s} 1`).sort(),
    );
    const inbox = await sql.query('SELECT 1 FROM revocation.inbox WHERE event_id = ANY($1::uuid[])', [
      eventIds,
    ]);
    expect(inbox.rows).toHaveLength(20);
    expect(await removals()).toEqual(removalsBefore);
  });
});
