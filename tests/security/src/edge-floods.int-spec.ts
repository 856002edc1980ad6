import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import {
  TestTenant,
  createTenant,
  issueBody,
  eventually,
  http,
  sleep,
  eventuallyCrl,
  ocspStatus,
} from '@ca/system/testing';
import { steadyClient } from './support/flood';
import { SystemUnderTest, startRealSystem } from './support/outsider';
import { auditVerify, holdSocket, statusFrom } from './support/raw-http';
import { describeWithRealServices } from './support/real-services';
import { StoredState, queryRows, readStoredState } from './support/stored-state';

jest.setTimeout(240_000);

const HEADERS_TIMEOUT_S = 2;
const AUTH_FAILURE_LIMIT = 60; // AUTH_FAILURE_LIMIT_PER_MINUTE, its default
const BAD_TOKENS = Number(process.env.SECURITY_AUTH_FLOOD ?? 3_000);
const WITHOUT_AUDIT = [
  'issuance.certificates',
  'revocation.revoked_certificates',
  'revocation.crls',
  'ocsp.certificate_status',
  'ocsp.crls',
];

/**
 * An outsider at the two HTTP ports (docs/security.md): thousands of bad tokens from one address,
 * tokens whose `sub` is odd or not text, idle sockets and a slowloris on both ports. Each is
 * refused or cut, a normal client is served meanwhile, the audit log stays bounded and verifiable,
 * and no certificate, revocation or CRL changes.
 */
describeWithRealServices('security: edge floods', [])('floods and odd tokens at the HTTP edge', () => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let stored: StoredState;

  beforeAll(async () => {
    sut = await startRealSystem({
      env: {
        HTTP_HEADERS_TIMEOUT: String(HEADERS_TIMEOUT_S),
        HTTP_REQUEST_TIMEOUT: '3',
        HTTP_KEEPALIVE_TIMEOUT: '2',
      },
    });
    tenant = await createTenant(sut);
    const { serialNumber } = await tenant.issue(issueBody());
    await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true, 'first CRL served');
    await ocspStatus(sut.pkiUrl, tenant.tenantId, tenant.caDer, serialNumber);
    await sleep(500);
    stored = await readStoredState(sut.databaseUrl, WITHOUT_AUDIT);
  });

  afterAll(async () => {
    if (sut) expect(await readStoredState(sut.databaseUrl, WITHOUT_AUDIT)).toEqual(stored);
    await sut?.stop();
  });

  const auditCount = async () =>
    Number(
      (await queryRows<{ n: string }>(sut.databaseUrl, 'SELECT count(*) AS n FROM gateway.audit_events'))[0]
        .n,
    );
  const auditedRequest = (requestId: string) =>
    eventually(
      async () =>
        (
          await queryRows<{ tenant_id: string; principal: string; result: number }>(
            sut.databaseUrl,
            'SELECT tenant_id, principal, result FROM gateway.audit_events WHERE request_id = $1',
            [requestId],
          )
        )[0],
      8_000,
      `audit entry ${requestId}`,
    );

  it(`answers ${BAD_TOKENS} bad tokens from one address mostly with 429, audits them in a few rows, and serves a good client`, async () => {
    const auditBefore = await auditCount();
    const good = steadyClient(
      async () =>
        (
          await statusFrom('127.0.0.6', `${sut.gatewayUrl}/v1/certificates`, {
            authorization: `Bearer ${tenant.bearer}`,
          })
        ).status === 200,
      200,
    );
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const statuses: Record<number, number> = {};
    let retryAfter: string | undefined;
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next++ < BAD_TOKENS) {
          const answer = await statusFrom(
            '127.0.0.5',
            `${sut.gatewayUrl}/v1/certificates`,
            { authorization: `Bearer bad.${randomUUID()}.token` },
            agent,
          );
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          if (answer.status === 429) retryAfter ??= answer.retryAfter;
        }
      }),
    );
    agent.destroy();
    const served = await good.stop();
    await sleep(1_000);
    const auditAfter = await auditCount();
    process.stderr.write(
      `auth flood: ${JSON.stringify(statuses)}; good client ${served.ok} ok, ${served.failed} failed; audit rows +${auditAfter - auditBefore}\n`,
    );

    expect(Object.keys(statuses).sort()).toEqual(['401', '429']);
    // At most the limit per minute (plus one minute's turn during the flood) gets a 401.
    expect(statuses[401]).toBeLessThanOrEqual(3 * AUTH_FAILURE_LIMIT);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(served.failed).toBe(0);
    expect(served.ok).toBeGreaterThan(0);
    // One row per good call, and the failures in aggregate: a few rows, not thousands.
    expect(auditAfter - auditBefore).toBeLessThanOrEqual(served.ok + 8);
  });

  it('refuses a sub that is not text, keeps odd but valid ones, audit verify passes, other tenants stay audited', async () => {
    for (const sub of ['admin\u0000root', 'admin\ud83d']) {
      const bearer = await sut.tokens.sign(tenant.tenantId, { subject: sub });
      expect((await tenant.get('/v1/certificates', { bearer })).status).toBe(401);
    }
    // 255 characters ending in an emoji (a surrogate pair in UTF-16), RTL, CJK, a bidi override.
    const odd = [`${'a'.repeat(254)}🔐`, 'مدير العمليات', '運用チーム 認証局', 'ops\u202eevil'];
    for (const sub of odd) {
      const bearer = await sut.tokens.sign(tenant.tenantId, { subject: sub });
      const requestId = `odd-sub-${randomUUID()}`;
      const answer = await tenant.get('/v1/certificates', { bearer, headers: { 'x-request-id': requestId } });
      expect([sub, answer.status]).toEqual([sub, 200]);
      expect((await auditedRequest(requestId)).principal).toBe(sub);
    }
    const verify = await auditVerify(sut.config.dataDir, sut.databaseUrl);
    expect(verify).toMatchObject({ code: 0, stdout: expect.stringMatching(/^audit verify: OK/) });

    const other = await createTenant(sut, { ca: false });
    const requestId = `after-odd-subs-${randomUUID()}`;
    expect((await other.get('/v1/certificates', { headers: { 'x-request-id': requestId } })).status).toBe(
      200,
    );
    expect(await auditedRequest(requestId)).toMatchObject({ tenant_id: other.tenantId, result: 200 });
  });

  it('cuts idle sockets and slowloris connections on both ports by the headers timeout, serving a normal client meanwhile', async () => {
    for (const base of [sut.gatewayUrl, sut.pkiUrl]) {
      const started = Date.now();
      const held = await Promise.all([
        ...Array.from({ length: 50 }, () => holdSocket(base)),
        ...Array.from({ length: 5 }, () => holdSocket(base, true)),
      ]);
      const normal = steadyClient(async () => (await http(`${base}/health/live`)).status === 200, 200);
      const closedAt = await Promise.race([
        Promise.all(held.map((h) => h.closed)),
        sleep(HEADERS_TIMEOUT_S * 1000 + 5_000).then(() => undefined),
      ]);
      const served = await normal.stop();
      for (const h of held) h.socket.destroy();
      expect(closedAt).toBeDefined();
      expect(Math.max(...closedAt!) - started).toBeLessThan(HEADERS_TIMEOUT_S * 1000 + 4_000);
      expect([base, served.failed]).toEqual([base, 0]);
      expect(served.ok).toBeGreaterThan(0);
    }
  });
});
