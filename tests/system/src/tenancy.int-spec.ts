import 'reflect-metadata';
import { randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { Pool } from 'pg';
import { CaManagerConfig, loadConfig } from '@ca/config';
import { TestMessaging, createTestMessaging } from '@ca/messaging/testing';
import { createLogger } from '@ca/observability';
import { TestDatabase, createTestDatabase, freshEmbeddedDataDir } from '@ca/persistence/testing';
import { buildCertId, parseOcspResponse, pemToDer } from '@ca/pki';
import { RunningService } from '@ca/runtime';
import { startGateway } from '@ca/gateway';
import { EmbeddedSystem, startEmbeddedSystem } from '@ca/embedded';
import { HttpAnswer, freePorts, http, sleep } from './support/http';
import { OpsResult, runOps } from './support/programs';

/**
 * Tenancy and operations, as a user and an operator see them (docs/api.md): tenant
 * suspension, plan limits, the audit log, per-tenant rate limits and `npm run ops`, run as a
 * separate process against the running system. Embedded (PGlite, in-process transport) always;
 * also on DATABASE_URL + NATS_URL when they are set.
 */
jest.setTimeout(90_000);

const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
const PROBLEM = /^application\/problem\+json(;|$)/;
const ALL_SCOPES = 'ca:admin certificates:write certificates:read';

type Mode = 'embedded' | 'postgres+nats';
const modes: Mode[] = !(process.env.DATABASE_URL && process.env.NATS_URL)
  ? ['embedded']
  : process.env.TEST_REAL_ONLY === '1'
    ? ['postgres+nats']
    : ['embedded', 'postgres+nats'];
if (modes.length === 1)
  console.warn('tenancy suite: DATABASE_URL/NATS_URL not set, postgres+nats mode skipped');

async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 8_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function expectProblem(answer: HttpAnswer, status: number, code: string): Record<string, unknown> {
  expect([answer.status, answer.text]).toEqual([status, expect.any(String)]);
  expect(answer.headers.get('content-type')).toMatch(PROBLEM);
  const problem = answer.json<Record<string, unknown>>();
  expect(problem).toMatchObject({ status, code, requestId: answer.headers.get('x-request-id') });
  return problem;
}

function expectRateLimitHeaders(answer: HttpAnswer, limit: number): void {
  expect(answer.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(Number(answer.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  const reset = Number(answer.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

/** DER of a minimal OCSPRequest (RFC 6960 4.1.1) asking about one CertID. */
function ocspRequest(certIdDer: Uint8Array): Buffer {
  const der = (tag: number, content: Buffer): Buffer => {
    const n = content.length;
    const length =
      n < 0x80 ? Buffer.of(n) : n < 0x100 ? Buffer.of(0x81, n) : Buffer.of(0x82, n >> 8, n & 0xff);
    return Buffer.concat([Buffer.of(tag), length, content]);
  };
  const sequence = (content: Buffer) => der(0x30, content);
  return sequence(sequence(sequence(sequence(Buffer.from(certIdDer)))));
}

describe.each(modes)('tenancy and operations (%s)', (mode) => {
  let config: CaManagerConfig;
  let env: Record<string, string>;
  let system: EmbeddedSystem;
  let database: TestDatabase | undefined;
  let messaging: TestMessaging | undefined;
  let dataDir: string;
  let gatewayUrl: string;
  let pkiUrl: string;
  let signingKey: webcrypto.CryptoKey;
  let sql: Pool;
  const logger = createLogger({ level: LOG_LEVEL, service: 'test' });
  const extraGateways: RunningService[] = [];

  function token(tenantId: string, scope = ALL_SCOPES, subject = 'tenancy-test'): Promise<string> {
    return new SignJWT({ tenantId, scope })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(signingKey);
  }

  async function call(
    method: string,
    path: string,
    options: { bearer?: string; body?: unknown; requestId?: string; base?: string } = {},
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = {};
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (options.requestId) headers['x-request-id'] = options.requestId;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    return http(`${options.base ?? gatewayUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  }

  /** A tenant with a CA; `before` runs first (operator commands on a tenant the gateway has not cached). */
  async function tenantWithCa(before?: (tenantId: string) => Promise<void>) {
    const tenantId = randomUUID();
    await before?.(tenantId);
    const bearer = await token(tenantId);
    const ca = await call('POST', '/v1/ca/initialize', {
      bearer,
      body: { commonName: 'Tenancy Root', organization: 'Tenancy', country: 'US', validityYears: 5 },
    });
    expect(ca.status).toBe(200);
    return { tenantId, bearer, caPem: ca.json<{ certificatePem: string }>().certificatePem };
  }

  const issueBody = (clientId = `client-${randomBytes(3).toString('hex')}`) => ({
    clientId,
    commonName: `${clientId}.example`,
    organization: 'Tenancy',
    organizationalUnit: 'Tests',
    country: 'US',
    validityDays: 30,
  });

  async function issue(bearer: string): Promise<HttpAnswer> {
    return call('POST', '/v1/certificates', { bearer, body: issueBody() });
  }

  /**
   * A limit set by the operator reaches issuance as a `tenant.updated` event, within about a second
   * (docs/api.md#operator-commands): waits until issuance refuses the certificate past `limit`,
   * then revokes what the probe issued, so the tenant starts with no Active certificate.
   */
  async function limitApplied(bearer: string, limit: number): Promise<void> {
    await eventually(async () => {
      const issued: string[] = [];
      let refused = false;
      for (let i = 0; i <= limit && !refused; i++) {
        const answer = await issue(bearer);
        if (answer.status === 200) issued.push(answer.json<{ certificateId: string }>().certificateId);
        else refused = answer.status === 409;
      }
      for (const id of issued) {
        const revoked = await call('POST', `/v1/certificates/${id}/revoke`, {
          bearer,
          body: { reason: 'probe' },
        });
        expect(revoked.status).toBe(200);
      }
      return refused && issued.length === limit ? true : undefined;
    }, `plan limit ${limit} applied by issuance`);
  }

  /** `npm run -s ops -- …` as an operator runs it: another process, the system's environment. */
  function ops(...args: string[]): Promise<OpsResult> {
    const inherited = { ...process.env };
    for (const name of ['DATABASE_URL', 'NATS_URL', 'NODE_OPTIONS', 'DATA_DIR']) delete inherited[name];
    return runOps(args, { ...inherited, ...env });
  }

  async function auditRows(where: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    const { rows } = await sql.query(
      `SELECT id, tenant_id, principal, action, resource, result, code, request_id FROM gateway.audit_events WHERE ${where} ORDER BY id`,
      params,
    );
    return rows;
  }

  function auditEntryOf(requestId: string): Promise<Record<string, unknown>> {
    return eventually(
      async () => (await auditRows('request_id = $1', [requestId]))[0],
      `audit entry ${requestId}`,
    );
  }

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    signingKey = pair.privateKey;
    const [gatewayPort, pkiPort] = await freePorts(2);
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    pkiUrl = `http://127.0.0.1:${pkiPort}`;
    env = {
      HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      PKI_PORT: String(pkiPort),
      GATEWAY_PUBLIC_URL: gatewayUrl,
      PKI_PUBLIC_URL: pkiUrl,
      JWT_PUBLIC_KEY: await exportSPKI(pair.publicKey),
      LOG_LEVEL,
    };
    if (mode === 'postgres+nats') {
      database = await createTestDatabase('postgres');
      dataDir = database.dataDir;
      messaging = createTestMessaging('nats', database.url);
      Object.assign(env, {
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        NATS_URL: process.env.NATS_URL!,
        CA_KEK: randomBytes(32).toString('base64'),
      });
    } else {
      dataDir = await freshEmbeddedDataDir('ca-tenancy-');
      env.DATA_DIR = dataDir;
    }
    config = loadConfig(env);
    system = await startEmbeddedSystem(config, {
      serviceLogger: () => logger,
      messaging: messaging?.options,
    });
    sql = new Pool({ connectionString: system.databaseUrl, max: 2 });
  });

  afterAll(async () => {
    for (const gateway of extraGateways) await gateway.close();
    await sql?.end();
    await system?.stop();
    await messaging?.cleanup();
    if (database) await database.drop();
    else if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  describe('suspension', () => {
    it('answers every admin call of a suspended tenant with 403, keeps its CRL, OCSP and CA certificate served, and lifts on resume', async () => {
      const { tenantId, bearer, caPem } = await tenantWithCa();
      const issued = await issue(bearer);
      expect(issued.status).toBe(200);
      const { certificateId, serialNumber } = issued.json<{ certificateId: string; serialNumber: string }>();
      const other = await tenantWithCa();

      const suspend = await ops('tenant', 'suspend', tenantId);
      expect(suspend).toMatchObject({ code: 0, stdout: expect.stringMatching(/suspended/) });
      await eventually(
        async () => ((await call('GET', '/v1/certificates', { bearer })).status === 403 ? true : undefined),
        'suspension in effect',
      );

      const renewBody = { validityDays: 30 };
      const routes: [string, string, unknown?][] = [
        [
          'POST',
          '/v1/ca/initialize',
          { commonName: 'X', organization: 'X', country: 'US', validityYears: 1 },
        ],
        ['POST', '/v1/certificates', issueBody()],
        ['GET', '/v1/certificates'],
        ['GET', '/v1/certificates/expiring?days=30'],
        ['GET', `/v1/certificates/${certificateId}`],
        ['POST', `/v1/certificates/${certificateId}/renew`, renewBody],
        ['POST', `/v1/certificates/${certificateId}/revoke`, { reason: 'keyCompromise' }],
        ['POST', '/v2/certificates', issueBody()],
        ['POST', `/v2/certificates/${certificateId}/renew`, renewBody],
      ];
      for (const [method, path, body] of routes) {
        const answer = await call(method, path, { bearer, body });
        const problem = expectProblem(answer, 403, 'FORBIDDEN');
        expect(problem.detail).toMatch(/suspended/);
      }
      // Even a token without any scope learns of the suspension, not of its scopes.
      expectProblem(
        await call('GET', '/v1/certificates', { bearer: await token(tenantId, '') }),
        403,
        'FORBIDDEN',
      );

      // The distribution surface keeps serving the tenant's partners.
      const caCert = await http(`${pkiUrl}/v1/tenants/${tenantId}/ca.pem`);
      expect(caCert.status).toBe(200);
      expect(caCert.text.trim()).toBe(caPem.trim());
      expect((await http(`${pkiUrl}/v1/tenants/${tenantId}/ca.crt`)).status).toBe(200);
      const crl = await eventually(async () => {
        const answer = await http(`${pkiUrl}/v1/tenants/${tenantId}/crl`);
        return answer.status === 200 ? answer : undefined;
      }, 'CRL served');
      expect(crl.headers.get('content-type')).toMatch(/^application\/pkix-crl/);
      const certId = buildCertId({
        issuerCertificateDer: pemToDer(caPem),
        serialNumberHex: serialNumber,
        hashAlgorithm: 'sha1',
      });
      const ocsp = await eventually(async () => {
        const answer = await http(`${pkiUrl}/v1/tenants/${tenantId}/ocsp`, {
          method: 'POST',
          headers: { 'content-type': 'application/ocsp-request' },
          body: ocspRequest(certId.der),
        });
        const parsed = parseOcspResponse(answer.body);
        return parsed.responseStatus === 'successful' && parsed.responses[0].status.kind === 'good'
          ? parsed
          : undefined;
      }, 'OCSP good answer');
      expect(ocsp.responses[0].serialNumberHex).toBe(serialNumber);

      // Other tenants are not affected.
      expect((await call('GET', '/v1/certificates', { bearer: other.bearer })).status).toBe(200);

      const resume = await ops('tenant', 'resume', tenantId);
      expect(resume).toMatchObject({ code: 0, stdout: expect.stringMatching(/active/) });
      await eventually(
        async () => ((await call('GET', '/v1/certificates', { bearer })).status === 200 ? true : undefined),
        'resumption in effect',
      );
      // Issuance learns of the resumption from the gateway's event, not from the gateway's cache:
      // the two take effect within the same few seconds, not at the same instant.
      await eventually(
        async () => ((await issue(bearer)).status === 200 ? true : undefined),
        'resumption in effect at issuance',
      );
    });

    it('suspends a tenant the system has not seen yet (tenants are created on first use)', async () => {
      const tenantId = randomUUID();
      expect(await ops('tenant', 'suspend', tenantId)).toMatchObject({ code: 0 });
      const show = await ops('tenant', 'show', tenantId);
      expect(show.code).toBe(0);
      expect(JSON.parse(show.stdout)).toMatchObject({
        tenantId,
        status: 'suspended',
        certificateLimit: 1000,
      });
      const answer = await call('POST', '/v1/ca/initialize', {
        bearer: await token(tenantId),
        body: { commonName: 'X', organization: 'X', country: 'US', validityYears: 1 },
      });
      expectProblem(answer, 403, 'FORBIDDEN');
    });
  });

  describe('plan limit', () => {
    it('refuses issue and renew past the limit with 409 CERTIFICATE_LIMIT_REACHED; revoking frees a slot', async () => {
      const { bearer } = await tenantWithCa(async (tenantId) => {
        expect(await ops('tenant', 'set-limit', tenantId, '2')).toMatchObject({
          code: 0,
          stdout: expect.stringMatching(/certificate limit 2/),
        });
      });
      await limitApplied(bearer, 2);
      const first = await issue(bearer);
      const second = await issue(bearer);
      expect([first.status, second.status]).toEqual([200, 200]);
      const third = await issue(bearer);
      const problem = expectProblem(third, 409, 'CERTIFICATE_LIMIT_REACHED');
      expect(problem.type).toBe(`${config.errorCatalogUrl}/ca-manager/certificate-limit-reached`);
      expectProblem(
        await call('POST', '/v2/certificates', { bearer, body: { ...issueBody(), usage: 'Client' } }),
        409,
        'CERTIFICATE_LIMIT_REACHED',
      );

      const firstId = first.json<{ certificateId: string }>().certificateId;
      const secondId = second.json<{ certificateId: string }>().certificateId;
      const revoked = await call('POST', `/v1/certificates/${firstId}/revoke`, {
        bearer,
        body: { reason: 'superseded' },
      });
      expect(revoked.status).toBe(200);
      const replacement = await issue(bearer);
      expect(replacement.status).toBe(200);

      // A renewal makes a new Active certificate and leaves the original Active: it counts too.
      const renew = await call('POST', `/v1/certificates/${secondId}/renew`, {
        bearer,
        body: { validityDays: 30 },
      });
      expectProblem(renew, 409, 'CERTIFICATE_LIMIT_REACHED');
      expectProblem(
        await call('POST', `/v2/certificates/${secondId}/renew`, { bearer, body: { validityDays: 30 } }),
        409,
        'CERTIFICATE_LIMIT_REACHED',
      );
      const replacementId = replacement.json<{ certificateId: string }>().certificateId;
      await call('POST', `/v1/certificates/${replacementId}/revoke`, {
        bearer,
        body: { reason: 'superseded' },
      });
      const renewed = await call('POST', `/v1/certificates/${secondId}/renew`, {
        bearer,
        body: { validityDays: 30 },
      });
      expect(renewed.status).toBe(200);
      expectProblem(await issue(bearer), 409, 'CERTIFICATE_LIMIT_REACHED');
    });

    it('lets exactly one of two concurrent issuances take the last slot', async () => {
      const { bearer } = await tenantWithCa(async (tenantId) => {
        expect((await ops('tenant', 'set-limit', tenantId, '1')).code).toBe(0);
      });
      await limitApplied(bearer, 1);
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all([issue(bearer), issue(bearer)]);
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        const loser = answers.find((a) => a.status === 409)!;
        expectProblem(loser, 409, 'CERTIFICATE_LIMIT_REACHED');
        const winner = answers.find((a) => a.status === 200)!.json<{ certificateId: string }>();
        const revoked = await call('POST', `/v1/certificates/${winner.certificateId}/revoke`, {
          bearer,
          body: { reason: 'superseded' },
        });
        expect(revoked.status).toBe(200);
      }
    });

    it('issues exactly up to the limit under a burst of concurrent requests', async () => {
      const { bearer } = await tenantWithCa(async (tenantId) => {
        expect((await ops('tenant', 'set-limit', tenantId, '3')).code).toBe(0);
      });
      await limitApplied(bearer, 3);
      const answers = await Promise.all(Array.from({ length: 8 }, () => issue(bearer)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
      const list = await call('GET', '/v1/certificates', { bearer });
      const active = list
        .json<{ certificates: { status: string }[] }>()
        .certificates.filter((c) => c.status === 'Active');
      expect(active).toHaveLength(3);
    });
  });

  describe('audit log', () => {
    let tenantId: string;
    let bearer: string;
    const ids = {
      success: `audit-ok-${randomUUID()}`,
      invalid: `audit-400-${randomUUID()}`,
      unauthenticated: `audit-401-${randomUUID()}`,
      forbidden: `audit-403-${randomUUID()}`,
      missing: `audit-404-${randomUUID()}`,
      conflict: `audit-409-${randomUUID()}`,
    };

    beforeAll(async () => {
      ({ tenantId, bearer } = await tenantWithCa());
      const answers = {
        success: await call('GET', '/v1/certificates', { bearer, requestId: ids.success }),
        invalid: await call('POST', '/v1/certificates', {
          bearer,
          requestId: ids.invalid,
          body: { ...issueBody(), country: 'usa' },
        }),
        unauthenticated: await call('GET', '/v1/certificates', { requestId: ids.unauthenticated }),
        forbidden: await call('POST', '/v1/certificates', {
          bearer: await token(tenantId, 'certificates:read', 'read-only-service'),
          requestId: ids.forbidden,
          body: issueBody(),
        }),
        missing: await call('GET', `/v1/certificates/${randomUUID()}`, { bearer, requestId: ids.missing }),
        conflict: await call('POST', '/v1/ca/initialize', {
          bearer,
          requestId: ids.conflict,
          body: { commonName: 'Again', organization: 'X', country: 'US', validityYears: 1 },
        }),
      };
      expect(Object.fromEntries(Object.entries(answers).map(([k, a]) => [k, a.status]))).toEqual({
        success: 200,
        invalid: 400,
        unauthenticated: 401,
        forbidden: 403,
        missing: 404,
        conflict: 409,
      });
      for (const [name, answer] of Object.entries(answers)) {
        expect(answer.headers.get('x-request-id')).toBe(ids[name as keyof typeof ids]);
        // Every answer past authentication carries the tenant's rate-limit state.
        if (name !== 'unauthenticated') expectRateLimitHeaders(answer, config.rateLimitPerMinute);
      }
    });

    it('records successes and failures with tenant, principal, action, resource, result, code and request id', async () => {
      const base = { tenant_id: tenantId, principal: 'tenancy-test' };
      expect(await auditEntryOf(ids.success)).toMatchObject({
        ...base,
        action: 'certificate.list',
        resource: '/v1/certificates',
        result: 200,
        code: null,
        request_id: ids.success,
      });
      expect(await auditEntryOf(ids.invalid)).toMatchObject({
        ...base,
        action: 'certificate.issue',
        result: 400,
        code: 'VALIDATION_FAILED',
      });
      expect(await auditEntryOf(ids.forbidden)).toMatchObject({
        tenant_id: tenantId,
        principal: 'read-only-service',
        action: 'certificate.issue',
        result: 403,
        code: 'FORBIDDEN',
      });
      expect(await auditEntryOf(ids.missing)).toMatchObject({
        ...base,
        action: 'certificate.get',
        resource: expect.stringMatching(/^\/v1\/certificates\/[0-9a-f-]{36}$/),
        result: 404,
        code: 'NOT_FOUND',
      });
      expect(await auditEntryOf(ids.conflict)).toMatchObject({
        ...base,
        action: 'ca.initialize',
        result: 409,
        code: 'CONFLICT',
      });
    });

    it('records a 401 with neither tenant nor principal', async () => {
      expect(await auditEntryOf(ids.unauthenticated)).toMatchObject({
        tenant_id: null,
        principal: null,
        action: 'certificate.list',
        result: 401,
        code: 'invalid_token',
      });
    });

    it('exports the tenant’s entries as JSON lines, without bodies or tokens', async () => {
      await auditEntryOf(ids.conflict);
      const exported = await ops('audit', 'export', '--tenant', tenantId);
      expect(exported.code).toBe(0);
      const lines = exported.stdout.trim().split('\n');
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(entries.every((e) => e.tenantId === tenantId)).toBe(true);
      const requestIds = entries.map((e) => e.requestId);
      for (const id of [ids.success, ids.invalid, ids.forbidden, ids.missing, ids.conflict])
        expect(requestIds).toContain(id);
      expect(requestIds).not.toContain(ids.unauthenticated);
      expect(Object.keys(entries[0]).sort()).toEqual(
        [
          'action',
          'code',
          'hash',
          'id',
          'occurredAt',
          'prevHash',
          'principal',
          'requestId',
          'resource',
          'result',
          'tenantId',
        ].sort(),
      );
      expect(exported.stdout).not.toContain(bearer.split('.')[2]);
      expect(exported.stdout).not.toMatch(/Tenancy Root|PRIVATE KEY|usa/);

      const future = await ops('audit', 'export', '--tenant', tenantId, '--since', '2999-01-01T00:00:00Z');
      expect(future).toMatchObject({ code: 0, stdout: '' });
    });

    it('refuses UPDATE and DELETE on audit_events in the database', async () => {
      const { id } = await auditEntryOf(ids.success);
      await expect(
        sql.query('UPDATE gateway.audit_events SET result = 500 WHERE id = $1', [id]),
      ).rejects.toThrow(/append-only/);
      await expect(sql.query('DELETE FROM gateway.audit_events WHERE id = $1', [id])).rejects.toThrow(
        /append-only/,
      );
      expect(await auditEntryOf(ids.success)).toMatchObject({ result: 200 });
    });

    it('audit verify passes, then names an entry changed behind the gateway’s back, and passes once it is restored', async () => {
      const passed = await ops('audit', 'verify');
      expect(passed).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^audit verify: OK, \d+ entries/),
      });

      const { id } = await auditEntryOf(ids.forbidden);
      const tamper = async (result: number, code: string) => {
        const client = await sql.connect();
        try {
          // What a database superuser could do: switch the trigger off, edit, switch it on again.
          await client.query('BEGIN');
          await client.query('ALTER TABLE gateway.audit_events DISABLE TRIGGER USER');
          await client.query('UPDATE gateway.audit_events SET result = $1, code = $2 WHERE id = $3', [
            result,
            code,
            id,
          ]);
          await client.query('ALTER TABLE gateway.audit_events ENABLE TRIGGER USER');
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      };
      await tamper(200, 'NONE');
      const failed = await ops('audit', 'verify');
      expect(failed.code).not.toBe(0);
      expect(failed.code).not.toBe(2);
      expect(failed.stderr).toMatch(new RegExp(`FAILED at entry ${id}\\b`));

      await tamper(403, 'FORBIDDEN');
      expect((await ops('audit', 'verify')).code).toBe(0);
    });
  });

  describe('rate limit', () => {
    it('counts per tenant across gateway replicas: the sixth call in a minute gets 429 with Retry-After', async () => {
      const ports = await freePorts(2);
      for (const port of ports) {
        extraGateways.push(
          await startGateway({
            config: { ...config, gatewayPort: port, rateLimitPerMinute: 5 },
            databaseUrl: system.databaseUrl,
            messaging: system.messaging,
            logger,
          }),
        );
      }
      const replicas = ports.map((port) => `http://127.0.0.1:${port}`);
      const tenantId = randomUUID();
      const bearer = await token(tenantId);
      // Six calls must fall in one window: do not start in its last seconds.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 50_000) await sleep(60_000 - intoMinute + 200);

      for (let n = 1; n <= 5; n++) {
        const answer = await call('GET', '/v1/certificates', { bearer, base: replicas[n % 2] });
        expect(answer.status).toBe(200);
        expectRateLimitHeaders(answer, 5);
        expect(answer.headers.get('ratelimit-remaining')).toBe(String(5 - n));
      }
      const limited = await call('GET', '/v1/certificates', {
        bearer,
        base: replicas[0],
        requestId: `rate-${tenantId}`,
      });
      const problem = expectProblem(limited, 429, 'RATE_LIMITED');
      expect(problem.type).toMatch(/\/common\/rate-limited$/);
      expectRateLimitHeaders(limited, 5);
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(retryAfter).toBe(Number(limited.headers.get('ratelimit-reset')));
      expect(await auditEntryOf(`rate-${tenantId}`)).toMatchObject({
        tenant_id: tenantId,
        result: 429,
        code: 'RATE_LIMITED',
      });

      // Another tenant has its own count.
      const other = await call('GET', '/v1/certificates', {
        bearer: await token(randomUUID()),
        base: replicas[1],
      });
      expect(other.status).toBe(200);
      expect(other.headers.get('ratelimit-remaining')).toBe('4');
      // Unauthenticated calls are not counted against any tenant and carry no tenant limit.
      const anonymous = await call('GET', '/v1/certificates', { base: replicas[0] });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('ratelimit-limit')).toBeNull();
    });
  });

  describe('operator CLI', () => {
    it('refuses bad arguments with one line and exit code 2', async () => {
      const refused = await Promise.all(
        [
          ['tenant', 'suspend', 'not-a-uuid'],
          ['tenant', 'set-limit', randomUUID(), 'lots'],
          ['audit', 'export', '--since', 'yesterday'],
          ['frobnicate'],
        ].map((args) => ops(...args)),
      );
      for (const result of refused) {
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toMatch(/^ops: /);
      }
    });

    it('sets a limit back to the default and shows it', async () => {
      const tenantId = randomUUID();
      expect((await ops('tenant', 'set-limit', tenantId, '7')).code).toBe(0);
      expect(JSON.parse((await ops('tenant', 'show', tenantId)).stdout)).toMatchObject({
        certificateLimit: 7,
      });
      expect((await ops('tenant', 'set-limit', tenantId, 'default')).code).toBe(0);
      expect(JSON.parse((await ops('tenant', 'show', tenantId)).stdout)).toMatchObject({
        certificateLimit: config.defaultCertificateLimit,
        certificateLimitIsDefault: true,
      });
    });

    if (mode === 'embedded') {
      it('says clearly when no system runs on the DATA_DIR', async () => {
        const empty = mkdtempSync(join(tmpdir(), 'ca-tenancy-empty-'));
        const saved = env.DATA_DIR;
        try {
          env.DATA_DIR = empty;
          const result = await ops('audit', 'verify');
          expect(result.code).toBe(1);
          expect(result.stderr).toMatch(/no running CA Manager found/);
        } finally {
          env.DATA_DIR = saved;
          rmSync(empty, { recursive: true, force: true });
        }
      });
    }
  });
});
