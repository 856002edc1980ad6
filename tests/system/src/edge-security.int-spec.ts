import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { SignJWT } from 'jose';
import { Pool } from 'pg';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { HttpAnswer, eventually, http } from './support/http';
import { holdSocket } from './support/held-socket';
import { OpsResult, runOps } from './support/programs';
import { expectInvalidToken, expectProblem, expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The edge of the administrative API and of the PKI port against hostile clients
 * (docs/security.md): text that is not Unicode text, the audit log that never stalls and hashes
 * what it stores, request ids, failed-authentication throttling, token lifetimes, and idle or
 * slow connections. Short HTTP timeouts so that cut connections are seen within seconds.
 */
jest.setTimeout(180_000);

const HEADERS_TIMEOUT_S = 2;
const MAX_CONNECTIONS = 64;
const MAX_CONNECTIONS_PER_CLIENT = 16;
const now = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request over node:http, from a chosen loopback source address (another "client machine"). */
function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; agent?: Agent } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      localAddress,
      agent: options.agent,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === 'string') headers.set(name, value);
        const text = body.toString('utf8');
        resolve({ status: res.statusCode!, headers, body, text, json: <T>() => JSON.parse(text) as T });
      });
    });
    req.end();
  });
}

describe.each(systemModes('edge security suite'))('the edge against hostile clients (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let sql: Pool;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, {
      env: {
        HTTP_HEADERS_TIMEOUT: String(HEADERS_TIMEOUT_S),
        HTTP_REQUEST_TIMEOUT: '3',
        HTTP_KEEPALIVE_TIMEOUT: '2',
        HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        HTTP_MAX_CONNECTIONS_PER_CLIENT: String(MAX_CONNECTIONS_PER_CLIENT),
      },
    });
    tenant = await createTenant(sut);
    sql = new Pool({ connectionString: sut.databaseUrl, max: 2 });
  });

  afterAll(async () => {
    await sql?.end();
    await sut?.stop();
  });

  const auditRows = async (where: string, params: unknown[] = []) =>
    (
      await sql.query(
        `SELECT id, tenant_id, principal, action, resource, result, code, request_id, occurrences FROM gateway.audit_events WHERE ${where} ORDER BY id`,
        params,
      )
    ).rows as Record<string, unknown>[];
  const auditEntryOf = (requestId: string) =>
    eventually(
      async () => (await auditRows('request_id = $1', [requestId]))[0],
      8_000,
      `audit entry ${requestId}`,
    );

  /** `npm run ops -- audit verify`, as an operator runs it: another process. */
  function auditVerify(): Promise<OpsResult> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: sut.config.dataDir };
    delete env.NODE_OPTIONS;
    if (mode === 'embedded') delete env.DATABASE_URL;
    else env.DATABASE_URL = sut.databaseUrl;
    delete env.NATS_URL;
    return runOps(['audit', 'verify'], env);
  }

  describe('text at the edge: NUL, unpaired surrogates and control characters', () => {
    it.each([
      ['NUL in a body field', 'organization', { organization: 'Acme\u0000Corp' }],
      ['an unpaired surrogate in a body field', 'commonName', { commonName: 'client \ud83d' }],
      ['a C1 control in a body field', 'organizationalUnit', { organizationalUnit: 'Ops\u0085' }],
      ['a tab in a single-line field', 'commonName', { commonName: 'a\tb' }],
    ])('answers %s with 400 naming the field', async (_name, field, overrides) => {
      const answer = await tenant.post('/v1/certificates', issueBody(overrides));
      const problem = expectValidationProblem(answer, [field]);
      expect(problem.errors![0].message).toMatch(/NUL|surrogate|control character/);
    });

    it('answers NUL sent as a JSON escape, and NUL in a revocation reason, with 400 (not 500)', async () => {
      const raw = JSON.stringify(issueBody()).replace('"Acme Corp"', '"Acme\\u0000Corp"');
      expectValidationProblem(await tenant.post('/v1/certificates', undefined, { raw }), ['organization']);
      const issued = await tenant.issue(issueBody());
      const revoke = await tenant.post(`/v1/certificates/${issued.certificateId}/revoke`, {
        reason: 'key\u0000lost',
        reasonCode: 'KeyCompromise',
      });
      expectValidationProblem(revoke, ['reason']);
    });

    it.each([
      ['a path parameter', '/v1/certificates/%00', 'certificateId'],
      ['a query parameter', '/v1/certificates/expiring?days=%00', 'days'],
      ['a query parameter (control character)', '/v1/certificates/expiring?days=3%1B', 'days'],
      ['a download token', '/v1/downloads/abc%00def', 'token'],
    ])('answers NUL in %s with 400 naming it', async (_name, path, field) => {
      expectValidationProblem(await tenant.get(path), [field]);
    });

    it('keeps odd but valid text: emoji, CJK and RTL pass untouched', async () => {
      const issued = await tenant.issue(issueBody({ organization: '認証局 🔐 שלום', commonName: 'Zoë 👩‍💻' }));
      const detail = (await tenant.get(`/v1/certificates/${issued.certificateId}`)).json<{
        commonName: string;
      }>();
      expect(detail.commonName).toBe('Zoë 👩‍💻');
    });
  });

  describe('the token’s sub', () => {
    it.each([
      ['NUL', 'admin\u0000root'],
      ['an unpaired surrogate', 'admin\ud83d'],
      ['a control character', 'admin\u001b[2J'],
    ])(
      'refuses a sub with %s as 401 invalid_token, and later calls of every tenant are audited',
      async (_n, sub) => {
        const bad = await sut.tokens.sign(tenant.tenantId, { subject: sub });
        expectInvalidToken(await tenant.get('/v1/certificates', { bearer: bad }));
        const requestId = `after-bad-sub-${randomUUID()}`;
        const other = await createTenant(sut, { ca: false });
        expect((await other.get('/v1/certificates', { headers: { 'x-request-id': requestId } })).status).toBe(
          200,
        );
        expect(await auditEntryOf(requestId)).toMatchObject({ tenant_id: other.tenantId, result: 200 });
      },
    );

    it('stores odd but valid principals whole, cut only between characters', async () => {
      const subs = ['ops 🔐 認証 שלום', `${'a'.repeat(255)}🔐tail`];
      for (const [i, sub] of subs.entries()) {
        const bearer = await sut.tokens.sign(tenant.tenantId, { subject: sub });
        const requestId = `odd-sub-${i}-${randomUUID()}`;
        expect(
          (await tenant.get('/v1/certificates', { bearer, headers: { 'x-request-id': requestId } })).status,
        ).toBe(200);
        const entry = await auditEntryOf(requestId);
        expect(entry.principal).toBe(i === 0 ? sub : `${'a'.repeat(255)}🔐`);
      }
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a safe id and replaces anything else with a generated one, which the answer carries', async () => {
      const safe = `svc:batch-1.${randomUUID()}`;
      expect(
        (await tenant.get('/v1/certificates', { headers: { 'x-request-id': safe } })).headers.get(
          'x-request-id',
        ),
      ).toBe(safe);
      for (const unsafe of ['a b', 'x"y', '../../etc', 'id\u00e9', 'x'.repeat(129), 'a/b', 'a+b=']) {
        const answer = await tenant.get('/v1/certificates/not-a-uuid', {
          headers: { 'x-request-id': unsafe },
        });
        const used = answer.headers.get('x-request-id')!;
        expect(used).not.toBe(unsafe);
        expect(used).toMatch(/^[0-9a-f-]{36}$/);
        expect(expectProblem(answer, 400, 'VALIDATION_FAILED').requestId).toBe(used);
        expect((await auditEntryOf(used)).request_id).toBe(used);
      }
    });
  });

  describe('token lifetime', () => {
    it('refuses a token valid for years with 401 invalid_token, with or without iat; accepts a day’s', async () => {
      const years = now() + 5 * 365 * 86_400;
      expectInvalidToken(
        await tenant.get('/v1/certificates', {
          bearer: await sut.tokens.sign(tenant.tenantId, { exp: years }),
        }),
      );
      const noIat = await new SignJWT({ tenantId: tenant.tenantId, scope: 'certificates:read' })
        .setProtectedHeader({ alg: 'ES256' })
        .setSubject('no-iat')
        .setExpirationTime(years)
        .sign(sut.tokens.signingKey);
      expectInvalidToken(await tenant.get('/v1/certificates', { bearer: noIat }));
      const day = await sut.tokens.sign(tenant.tenantId, { exp: now() + 86_000 });
      expect((await tenant.get('/v1/certificates', { bearer: day })).status).toBe(200);
    });
  });

  describe('the audit log never stalls', () => {
    it('sets an entry the database refuses aside, audits the next calls of every tenant, and audit verify passes with a warning', async () => {
      // A poison entry: the database refuses this one principal (as it refused NUL before).
      await sql.query(`CREATE FUNCTION gateway.test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.principal = 'poison-principal' THEN RAISE EXCEPTION 'poisoned entry' USING ERRCODE = '22021'; END IF;
          RETURN NEW;
        END $$`);
      await sql.query(
        'CREATE TRIGGER test_poison BEFORE INSERT ON gateway.audit_events FOR EACH ROW EXECUTE FUNCTION gateway.test_poison()',
      );
      try {
        const poison = await sut.tokens.sign(tenant.tenantId, { subject: 'poison-principal' });
        const poisonId = `poison-${randomUUID()}`;
        expect(
          (await tenant.get('/v1/certificates', { bearer: poison, headers: { 'x-request-id': poisonId } }))
            .status,
        ).toBe(200);
        const other = await createTenant(sut, { ca: false });
        const afterIds = [`after-poison-a-${randomUUID()}`, `after-poison-b-${randomUUID()}`];
        await tenant.get('/v1/certificates', { headers: { 'x-request-id': afterIds[0] } });
        await other.get('/v1/certificates', { headers: { 'x-request-id': afterIds[1] } });
        for (const id of afterIds) expect(await auditEntryOf(id)).toMatchObject({ result: 200 });
        const deadLetters = await eventually(
          async () =>
            (
              await sql.query(
                'SELECT request_id, reason, entry FROM gateway.audit_dead_letters WHERE request_id = $1',
                [poisonId],
              )
            ).rows[0],
          8_000,
          'dead letter',
        );
        expect(deadLetters.reason).toContain('poisoned entry');
        expect(JSON.parse(deadLetters.entry)).toMatchObject({
          principal: 'poison-principal',
          requestId: poisonId,
        });
        expect(await auditRows('request_id = $1', [poisonId])).toEqual([]);
      } finally {
        await sql.query('DROP TRIGGER test_poison ON gateway.audit_events');
        await sql.query('DROP FUNCTION gateway.test_poison()');
      }
      const verify = await auditVerify();
      expect(verify).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^audit verify: OK, \d+ entries/),
      });
      expect(verify.stderr).toMatch(
        /WARNING 1 entries could not be stored and were set aside in gateway.audit_dead_letters/,
      );
    });
  });

  describe('idle and slow connections (both ports)', () => {
    it('cuts idle sockets and a slowloris by the headers timeout, answering a normal client meanwhile', async () => {
      for (const base of [sut.gatewayUrl, sut.pkiUrl]) {
        const started = Date.now();
        const held = await Promise.all([
          // One client's full share (HTTP_MAX_CONNECTIONS_PER_CLIENT); the normal client is another.
          ...Array.from({ length: MAX_CONNECTIONS_PER_CLIENT - 1 }, () =>
            holdSocket(base, false, '127.0.0.4'),
          ),
          holdSocket(base, true, '127.0.0.4'),
        ]);
        const live = await http(`${base}/health/live`);
        expect(live.status).toBe(200);
        const closedAt = await Promise.race([
          Promise.all(held.map((h) => h.closed)),
          sleep(HEADERS_TIMEOUT_S * 1000 + 4_000).then(() => undefined),
        ]);
        expect(closedAt).toBeDefined();
        for (const at of closedAt!) expect(at - started).toBeLessThan(HEADERS_TIMEOUT_S * 1000 + 3_000);
      }
    });

    it('closes a client’s connections past HTTP_MAX_CONNECTIONS_PER_CLIENT at once, not another client’s', async () => {
      for (const base of [sut.gatewayUrl, sut.pkiUrl]) {
        const hold = async (localAddress: string) => {
          const opened = Date.now();
          const held = await holdSocket(base, false, localAddress);
          // Cut within a second of opening: refused at accept (the headers timeout takes 2 s).
          const cutAtOnce = Promise.race([
            held.closed.then((at) => at - opened < 1_000),
            sleep(1_000).then(() => false),
          ]);
          return { ...held, cutAtOnce };
        };
        const first = await Promise.all(
          Array.from({ length: MAX_CONNECTIONS_PER_CLIENT }, () => hold('127.0.0.7')),
        );
        const second = await Promise.all(
          Array.from({ length: MAX_CONNECTIONS_PER_CLIENT + 4 }, () => hold('127.0.0.8')),
        );
        // A third client is served while both hold their share.
        expect((await requestFrom('127.0.0.9', `${base}/health/live`)).status).toBe(200);
        const cut = async (held: typeof first) =>
          (await Promise.all(held.map((h) => h.cutAtOnce))).filter(Boolean);
        expect([base, (await cut(second)).length, (await cut(first)).length]).toEqual([base, 4, 0]);
        for (const h of [...first, ...second]) h.socket.destroy();
        await Promise.all([...first, ...second].map((h) => h.closed));
      }
    });

    it('closes connections past HTTP_MAX_CONNECTIONS at once, and serves again once they are gone', async () => {
      for (const base of [sut.gatewayUrl, sut.pkiUrl]) {
        // From several addresses, so that the server's limit is reached before any client's own.
        const held = await Promise.all(
          Array.from({ length: MAX_CONNECTIONS + 6 }, (_, i) => holdSocket(base, false, `127.0.1.${i % 8}`)),
        );
        const early = await Promise.all(held.map((h) => Promise.race([h.closed, sleep(500).then(() => 0)])));
        expect(early.filter((at) => at > 0).length).toBeGreaterThanOrEqual(6);
        for (const h of held) h.socket.destroy();
        await sleep(200);
        expect((await http(`${base}/health/live`)).status).toBe(200);
      }
    });
  });

  describe('failed authentication (AUTH_FAILURE_LIMIT_PER_MINUTE, default 60)', () => {
    // Earlier tests of this suite failed from 127.0.0.1; the burst comes from an address of its own.
    const SOURCE = 'source-address/127.0.0.3';

    it('answers a burst of 500 bad tokens mostly with 429 + Retry-After, audits them in aggregate, and lets another address in', async () => {
      const [{ max: before }] = (
        await sql.query('SELECT coalesce(max(id), 0) AS max FROM gateway.audit_events')
      ).rows;
      const agent = new Agent({ keepAlive: true, maxSockets: 10 });
      const bad = { authorization: 'Bearer not.a.token' };
      const statuses: number[] = [];
      let throttled: HttpAnswer | undefined;
      for (let i = 0; i < 50; i++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, () =>
            requestFrom('127.0.0.3', `${sut.gatewayUrl}/v1/certificates`, { headers: bad, agent }),
          ),
        );
        for (const answer of answers) {
          statuses.push(answer.status);
          if (answer.status === 429) throttled ??= answer;
        }
      }
      agent.destroy();
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(120);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(380);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
      expectProblem(throttled!, 429, 'RATE_LIMITED');
      expect(Number(throttled!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(throttled!.headers.get('www-authenticate')).toBeNull();

      // Another address with a good token is served; this one is not, whatever its token.
      const good = { authorization: `Bearer ${tenant.bearer}` };
      expect(
        (await requestFrom('127.0.0.2', `${sut.gatewayUrl}/v1/certificates`, { headers: good })).status,
      ).toBe(200);
      expect(
        (await requestFrom('127.0.0.3', `${sut.gatewayUrl}/v1/certificates`, { headers: good })).status,
      ).toBe(429);

      await sleep(1_000);
      const rows = await auditRows('id > $1 AND tenant_id IS NULL', [before]);
      expect(rows.length).toBeGreaterThanOrEqual(1);
      expect(rows.length).toBeLessThanOrEqual(4);

      // The minute's summary is written when it ends, or when the gateway stops.
      // The embedded database restarts too (another port, another password).
      await sql.end();
      await sut.restart();
      sql = new Pool({ connectionString: sut.databaseUrl, max: 2 });
      const summary = await eventually(
        async () =>
          (await auditRows(`id > $1 AND action = 'auth.failures' AND resource = $2`, [before, SOURCE]))[0],
        8_000,
        'aggregate entry',
      );
      const all = await auditRows(`id > $1 AND action = 'auth.failures' AND resource = $2`, [before, SOURCE]);
      const counted = all.reduce((sum, row) => sum + Number(row.occurrences), 0);
      expect(summary).toMatchObject({ tenant_id: null, principal: null, result: 429, code: 'RATE_LIMITED' });
      expect(counted + rows.filter((r) => r.action !== 'auth.failures').length).toBeGreaterThanOrEqual(500);
    });
  });
});
