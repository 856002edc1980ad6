import { randomUUID } from 'node:crypto';
import { generateKeyPairSync } from 'node:crypto';
import {
  CaError,
  ErrorCode,
  EventEnvelope,
  EventType,
  IssuanceApi,
  IssuancePattern,
  TenantUpdatedPayload,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { Client } from 'pg';
import { openGatewayDatabase, GatewayOperations, OpsCommand } from '@ca/gateway';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { freshSubjectPublicKey } from './support/subject-key';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

jest.setTimeout(120_000);

/**
 * Issuance trusts no caller (docs/security.md): a command sent straight to issuance over the bus,
 * skipping the gateway, still meets the tenant's suspension and plan limit (from issuance's own
 * projection of the gateway's `tenant.updated` events), must carry a valid P-256 public key and a
 * principal, and a malformed event on the bus is set aside without blocking the consumer.
 */
describe.each(systemModes('issuance trust suite'))('issuance trusts no caller (%s)', (mode) => {
  let sut: SystemUnderTest;
  let issuance: RpcClient<IssuanceApi>;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    // The system's own connection: in process, only it reaches issuance's handlers; on NATS it is
    // one more client of the bus, as any other process could be.
    issuance = sut.system.messaging.rpcClient<IssuanceApi>();
  });
  afterAll(async () => {
    await issuance?.close();
    await sut?.stop();
  });

  /** `npm run ops` as the operator runs it (the same GatewayOperations, on the system's database). */
  async function ops(command: OpsCommand): Promise<void> {
    const dataSource = await openGatewayDatabase(sut.databaseUrl, 1);
    try {
      const silent = { out: () => undefined, err: () => undefined };
      expect(
        await new GatewayOperations(dataSource, {
          defaultCertificateLimit: sut.config.defaultCertificateLimit,
        }).run(command, silent),
      ).toBe(0);
    } finally {
      await dataSource.destroy();
    }
  }

  async function query<T>(sql: string, params: unknown[]): Promise<T[]> {
    const client = new Client({ connectionString: sut.databaseUrl });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Waits until issuance's projection holds what the gateway said (the event crossed the bus). */
  async function projected(tenantId: string, status: string, limit: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await query<{ status: string; certificate_limit: number }>(
        'SELECT status, certificate_limit FROM issuance.tenants WHERE tenant_id = $1',
        [tenantId],
      );
      if (rows[0]?.status === status && rows[0].certificate_limit === limit) return;
      if (Date.now() > deadline)
        throw new Error(`issuance.tenants never held ${status}/${limit}: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const issueStraight = (tenantId: string, overrides: Record<string, unknown> = {}) =>
    issuance.send(IssuancePattern.IssueCertificate, {
      tenantId,
      principal: 'bus-caller',
      subjectPublicKey: freshSubjectPublicKey(),
      request: issueBody() as never,
      ...overrides,
    });

  async function refusal(call: Promise<unknown>): Promise<CaError> {
    const error = await call.then(
      (value) => {
        throw new Error(`issuance accepted it: ${JSON.stringify(value).slice(0, 200)}`);
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CaError);
    return error as CaError;
  }

  it('refuses a command sent straight to issuance for a tenant suspended with ops, and issues again once resumed', async () => {
    const t = await createTenant(sut);
    await projected(t.tenantId, 'active', sut.config.defaultCertificateLimit);
    await ops({ kind: 'tenant.suspend', tenantId: t.tenantId });
    await projected(t.tenantId, 'suspended', sut.config.defaultCertificateLimit);
    const refused = await refusal(issueStraight(t.tenantId));
    expect(refused.code).toBe(ErrorCode.Forbidden);
    expect(refused.message).toMatch(/suspended/);
    await ops({ kind: 'tenant.resume', tenantId: t.tenantId });
    await projected(t.tenantId, 'active', sut.config.defaultCertificateLimit);
    await expect(issueStraight(t.tenantId)).resolves.toMatchObject({ certificatePem: expect.any(String) });
  });

  it('applies a plan limit set with ops to commands sent straight to issuance too', async () => {
    const t: TestTenant = await createTenant(sut);
    await ops({ kind: 'tenant.set-limit', tenantId: t.tenantId, limit: 1 });
    await projected(t.tenantId, 'active', 1);
    expect((await t.post('/v1/certificates', issueBody())).status).toBe(200);
    expect((await t.post('/v1/certificates', issueBody())).json<{ code: string }>().code).toBe(
      ErrorCode.CertificateLimitReached,
    );
    expect((await refusal(issueStraight(t.tenantId))).code).toBe(ErrorCode.CertificateLimitReached);
  });

  it('refuses, with VALIDATION_FAILED, a command without an allowed public key or without a principal, and the old limit field is no way round', async () => {
    const t = await createTenant(sut);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
      type: 'spki',
      format: 'der',
    });
    for (const subjectPublicKey of [
      undefined,
      { format: 'spki', der: rsa.toString('base64') },
      { format: 'spki', der: Buffer.from('not a key at all').toString('base64') },
      { format: 'pem', der: freshSubjectPublicKey().der },
    ]) {
      const refused = await refusal(issueStraight(t.tenantId, { subjectPublicKey }));
      expect(refused.code).toBe(ErrorCode.ValidationFailed);
      expect(refused.errors?.[0].field).toBe('subjectPublicKey');
    }
    // A key in a CSR is checked as the CSR it claims to be: an SPKI is no PKCS#10 request.
    const notACsr = await refusal(
      issueStraight(t.tenantId, { subjectPublicKey: { format: 'pkcs10', der: freshSubjectPublicKey().der } }),
    );
    expect(notACsr.code).toBe(ErrorCode.CsrInvalid);
    const anonymous = await refusal(issueStraight(t.tenantId, { principal: '' }));
    expect(anonymous.errors?.[0].field).toBe('principal');
    await ops({ kind: 'tenant.set-limit', tenantId: t.tenantId, limit: 0 });
    await projected(t.tenantId, 'active', 0);
    expect((await refusal(issueStraight(t.tenantId, { certificateLimit: 1_000_000 }))).code).toBe(
      ErrorCode.CertificateLimitReached,
    );
  });

  it('keeps who issued and who revoked on the certificate row', async () => {
    const t = await createTenant(sut);
    const issued = await issueStraight(t.tenantId, { principal: 'alice@example' });
    await issuance.send(IssuancePattern.RevokeCertificate, {
      tenantId: t.tenantId,
      principal: 'bob@example',
      certificateId: issued.certificateId,
      request: { reason: 'test' },
    });
    expect(
      await query('SELECT issued_by, revoked_by FROM issuance.certificates WHERE id = $1', [
        issued.certificateId,
      ]),
    ).toEqual([{ issued_by: 'alice@example', revoked_by: 'bob@example' }]);
  });

  it('sets a malformed tenant.updated aside and goes on with the next event', async () => {
    const t = await createTenant(sut);
    await ops({ kind: 'tenant.suspend', tenantId: t.tenantId });
    await projected(t.tenantId, 'suspended', sut.config.defaultCertificateLimit);
    const messaging = sut.system.messaging;
    const event = (payload: Record<string, unknown>): EventEnvelope => ({
      id: randomUUID(),
      type: EventType.TenantUpdated,
      tenantId: t.tenantId,
      occurredAt: new Date().toISOString(),
      payload: { tenantId: t.tenantId, ...payload },
    });
    const later = new Date(Date.now() + 60_000).toISOString();
    await messaging.events.publish(event({ status: 'active', certificateLimit: 'lots', updatedAt: later }));
    await messaging.events.publish(event({ status: 'active', updatedAt: later }));
    const valid: TenantUpdatedPayload = {
      tenantId: t.tenantId,
      status: 'suspended',
      certificateLimit: 7,
      updatedAt: later,
    };
    await messaging.events.publish(event({ ...valid }));
    await projected(t.tenantId, 'suspended', 7);
  });
});
