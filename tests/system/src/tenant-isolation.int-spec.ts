import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  CaError,
  CertificateRevokedPayload,
  ErrorCode,
  EventType,
  IssuanceApi,
  IssuancePattern,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { encodeTbsCertList } from '@ca/pki';
import {
  Detail,
  Expiring,
  IssuedCertificate,
  Summary,
  TestTenant,
  createTenant,
  issueBody,
} from './support/admin-api';
import { http } from './support/http';
import { eventuallyCrl, eventuallyRevokedInOcsp, ocspStatus } from './support/pki';
import { expectProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';
import { freshSubjectPublicKey } from './support/subject-key';

/**
 * Two tenants, every identifier of one tried with the other's token (docs/api.md#tenants-and-isolation: 403 for a
 * certificate that exists in another tenant, 404 for one that exists nowhere), on the admin API,
 * on the public surface, and at the message level, where the owning services (issuance,
 * revocation) must refuse a wrong tenant themselves, not rely on the gateway.
 */
jest.setTimeout(120_000);

interface Owned {
  tenant: TestTenant;
  active: IssuedCertificate;
  revoked: IssuedCertificate;
  /** A v2 certificate (renewed through /v2). */
  server: IssuedCertificate;
}

describe.each(systemModes('tenant isolation suite'))('tenant isolation (%s)', (mode) => {
  let sut: SystemUnderTest;
  let a: Owned;
  let b: Owned;
  const caIds = new Map<string, string>();

  async function populate(): Promise<Owned> {
    const tenant = await createTenant(sut);
    const active = await tenant.issue(issueBody({ validityDays: 10 }));
    const revoked = await tenant.issue(issueBody({ clientId: 'to-revoke' }));
    const server = await tenant.issue(
      issueBody({ usage: 'Server', subjectAlternativeNames: ['api.example.com'] }),
      '/v2/certificates',
    );
    const answer = await tenant.post(`/v1/certificates/${revoked.certificateId}/revoke`, {
      reason: 'setting up',
      reasonCode: 'Superseded',
    });
    expect(answer.status).toBe(200);
    return { tenant, active, revoked, server };
  }

  const ids = (owned: Owned) => [owned.active, owned.revoked, owned.server].map((c) => c.certificateId);
  const listed = async (tenant: TestTenant) =>
    (await tenant.get('/v1/certificates')).json<{ certificates: Summary[] }>().certificates;
  /** What a tenant's data looks like (statuses and PEMs), to prove that refused calls changed nothing. */
  const snapshot = async (owned: Owned) => ({
    list: (await listed(owned.tenant)).map(({ daysUntilExpiration: _, ...rest }) => rest),
    details: await Promise.all(
      ids(owned).map(async (id) => {
        const { daysUntilExpiration: _, ...rest } = (
          await owned.tenant.get(`/v1/certificates/${id}`)
        ).json<Detail>();
        return rest;
      }),
    ),
    caPem: (await http(`${sut.pkiUrl}/v1/tenants/${owned.tenant.tenantId}/ca.pem`)).text,
  });

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    [a, b] = await Promise.all([populate(), populate()]);
    await loadCaIds();
  });

  afterAll(async () => {
    await sut?.stop();
  });

  describe('administrative API', () => {
    const identifierCalls: {
      name: string;
      call: (t: TestTenant, id: string) => ReturnType<TestTenant['get']>;
    }[] = [
      { name: 'GET /v1/certificates/{id}', call: (t, id) => t.get(`/v1/certificates/${id}`) },
      {
        name: 'POST /v1/certificates/{id}/renew',
        call: (t, id) => t.post(`/v1/certificates/${id}/renew`, { validityDays: 5 }),
      },
      {
        name: 'POST /v2/certificates/{id}/renew',
        call: (t, id) => t.post(`/v2/certificates/${id}/renew`, { validityDays: 5 }),
      },
      {
        name: 'POST /v1/certificates/{id}/revoke',
        call: (t, id) => t.post(`/v1/certificates/${id}/revoke`, { reason: 'cross-tenant' }),
      },
    ];

    it.each(identifierCalls)(
      '$name: 403 for every id of the other tenant (both ways), 404 for an id of no tenant; nothing changes',
      async ({ call }) => {
        const before = [await snapshot(a), await snapshot(b)];
        for (const [caller, owner] of [
          [b, a],
          [a, b],
        ]) {
          for (const id of ids(owner)) {
            expectProblem(await call(caller.tenant, id), 403, 'FORBIDDEN');
            // The same id in upper case is the same certificate, not a way around the check.
            expectProblem(await call(caller.tenant, id.toUpperCase()), 403, 'FORBIDDEN');
          }
          expectProblem(await call(caller.tenant, randomUUID()), 404, 'NOT_FOUND');
        }
        expect([await snapshot(a), await snapshot(b)]).toEqual(before);
      },
    );

    it("lists only the tenant's own certificates, and expiring never shows the other's", async () => {
      for (const [own, other] of [
        [a, b],
        [b, a],
      ]) {
        const listedIds = (await listed(own.tenant)).map((s) => s.certificateId).sort();
        expect(listedIds).toEqual(expect.arrayContaining(ids(own)));
        for (const id of ids(other)) expect(listedIds).not.toContain(id);
        const expiring = (await own.tenant.get('/v1/certificates/expiring?days=3650')).json<{
          certificates: Expiring[];
        }>().certificates;
        expect(expiring.map((e) => e.certificateId)).toContain(own.active.certificateId);
        for (const e of expiring) expect(e.tenantId).toBe(own.tenant.tenantId);
      }
    });

    it("acts on the token's tenant only: B initializing and issuing leaves A's CA and list as they were", async () => {
      const before = await snapshot(a);
      const init = await b.tenant.post('/v1/ca/initialize', {
        commonName: 'Takeover Root',
        organization: 'Mallory',
        country: 'US',
        validityYears: 5,
      });
      expectProblem(init, 409, 'CONFLICT');
      const issued = await b.tenant.issue(issueBody({ clientId: 'b-extra' }));
      expect(ids(a)).not.toContain(issued.certificateId);
      expect(await snapshot(a)).toEqual(before);
    });
  });

  describe('public surface, keyed by tenant', () => {
    it("serves each tenant its own CA, and A's serials are not B's", async () => {
      const pemA = (await http(`${sut.pkiUrl}/v1/tenants/${a.tenant.tenantId}/ca.pem`)).text;
      const pemB = (await http(`${sut.pkiUrl}/v1/tenants/${b.tenant.tenantId}/ca.pem`)).text;
      expect(pemA.trim()).toBe(a.tenant.caPem.trim());
      expect(pemB.trim()).toBe(b.tenant.caPem.trim());
      expect(pemA).not.toBe(pemB);
      // A's serials asked of B's responder (named by either CA): never good or revoked.
      for (const issuerDer of [a.tenant.caDer, b.tenant.caDer]) {
        for (const cert of [a.active, a.revoked]) {
          const status = await ocspStatus(sut.pkiUrl, b.tenant.tenantId, issuerDer, cert.serialNumber).catch(
            (error: Error) => error.message,
          );
          expect(status).not.toEqual(expect.objectContaining({ kind: 'good' }));
          expect(status).not.toEqual(expect.objectContaining({ kind: 'revoked' }));
        }
      }
    });

    it("lists each tenant's revocations in its own CRL only", async () => {
      const { crl: crlA } = await eventuallyCrl(sut.pkiUrl, a.tenant.tenantId, (c) =>
        c.entries.some((e) => e.serialNumberHex === a.revoked.serialNumber),
      );
      const { crl: crlB } = await eventuallyCrl(sut.pkiUrl, b.tenant.tenantId, (c) =>
        c.entries.some((e) => e.serialNumberHex === b.revoked.serialNumber),
      );
      expect(crlA.entries.map((e) => e.serialNumberHex)).not.toContain(b.revoked.serialNumber);
      expect(crlB.entries.map((e) => e.serialNumberHex)).not.toContain(a.revoked.serialNumber);
    });
  });

  describe('message level: the owning services refuse a wrong tenant themselves', () => {
    let issuance: RpcClient<IssuanceApi>;
    const command = (tenantId: string) => ({ tenantId, principal: 'mallory', requestId: randomUUID() });

    beforeAll(() => {
      issuance = sut.system.messaging.rpcClient<IssuanceApi>();
    });

    afterAll(async () => {
      await issuance?.close();
    });

    async function refusal(pending: Promise<unknown>): Promise<CaError> {
      const outcome = await pending.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      if (!('error' in outcome)) throw new Error(`issuance accepted it: ${JSON.stringify(outcome.value)}`);
      expect(outcome.error).toBeInstanceOf(CaError);
      return outcome.error as CaError;
    }

    it("issuance answers FORBIDDEN to get, renew and revoke of A's certificates sent with B's tenantId", async () => {
      const before = await snapshot(a);
      for (const certificateId of ids(a)) {
        const calls: Promise<unknown>[] = [
          issuance.send(IssuancePattern.GetCertificate, { tenantId: b.tenant.tenantId, certificateId }),
          issuance.send(IssuancePattern.RevokeCertificate, {
            ...command(b.tenant.tenantId),
            certificateId,
            request: { reason: 'cross-tenant', reasonCode: 'KeyCompromise' },
          }),
          issuance.send(IssuancePattern.RenewCertificate, {
            ...command(b.tenant.tenantId),
            subjectPublicKey: freshSubjectPublicKey(),
            certificateId,
            request: { validityDays: 5 },
          }),
          issuance.send(IssuancePattern.RenewCertificateV2, {
            ...command(b.tenant.tenantId),
            subjectPublicKey: freshSubjectPublicKey(),
            certificateId,
            request: { validityDays: 5 },
          }),
        ];
        for (const call of calls) expect((await refusal(call)).code).toBe(ErrorCode.Forbidden);
      }
      const listedForB = await issuance.send(IssuancePattern.ListCertificates, {
        tenantId: b.tenant.tenantId,
      });
      for (const id of ids(a)) expect(listedForB.certificates.map((c) => c.certificateId)).not.toContain(id);
      expect(await snapshot(a)).toEqual(before);
      // Still good at A's responder: no revocation event left issuance.
      expect(await ocspStatus(sut.pkiUrl, a.tenant.tenantId, a.tenant.caDer, a.active.serialNumber)).toEqual({
        kind: 'good',
      });
    });

    it("issuance refuses to sign, with B's key, a CRL that names A's CA", async () => {
      const tbs = encodeTbsCertList({
        issuerCertificateDer: a.tenant.caDer,
        crlNumber: 999n,
        thisUpdate: new Date(),
        nextUpdate: new Date(Date.now() + 86_400_000),
        entries: [{ serialNumberHex: a.active.serialNumber, revocationDate: new Date(), reasonCode: 1 }],
      });
      const tbsBlobRef = await sut.system.messaging.blobs.put(tbs);
      const error = await refusal(
        issuance.send(IssuancePattern.SignCrl, {
          tenantId: b.tenant.tenantId,
          tbsBlobRef,
          tbsSha256: createHash('sha256').update(tbs).digest('hex'),
        }),
      );
      expect(error.code).toBe(ErrorCode.Forbidden);
    });

    it("revocation and the responder refuse certificate.revoked events naming A's certificate under B; no CRL or OCSP answer changes", async () => {
      const forged = (envelopeTenant: string, payloadTenant: string) => ({
        id: randomUUID(),
        type: EventType.CertificateRevoked,
        tenantId: envelopeTenant,
        occurredAt: new Date().toISOString(),
        payload: {
          tenantId: payloadTenant,
          certificateId: a.active.certificateId,
          caId: caIdOf(a),
          serialNumber: a.active.serialNumber,
          revokedAt: new Date().toISOString(),
          reasonCode: 1,
        } satisfies CertificateRevokedPayload,
      });
      await sut.system.messaging.events.publish(forged(b.tenant.tenantId, b.tenant.tenantId));
      await sut.system.messaging.events.publish(forged(b.tenant.tenantId, a.tenant.tenantId));
      await sut.system.messaging.events.publish(forged(a.tenant.tenantId, b.tenant.tenantId));

      // A barrier: events are applied in order, so once B's own later revocation is in B's CRL,
      // the forged ones before it have been handled.
      const barrier = await b.tenant.issue(issueBody({ clientId: 'barrier' }));
      expect(
        (await b.tenant.post(`/v1/certificates/${barrier.certificateId}/revoke`, { reason: 'barrier' }))
          .status,
      ).toBe(200);
      const { crl: crlB } = await eventuallyCrl(sut.pkiUrl, b.tenant.tenantId, (c) =>
        c.entries.some((e) => e.serialNumberHex === barrier.serialNumber),
      );
      expect(crlB.entries.map((e) => e.serialNumberHex).sort()).toEqual(
        [b.revoked.serialNumber, barrier.serialNumber].sort(),
      );
      await eventuallyRevokedInOcsp(sut.pkiUrl, b.tenant.tenantId, b.tenant.caDer, barrier.serialNumber);
      const { crl: crlA } = await eventuallyCrl(sut.pkiUrl, a.tenant.tenantId, () => true);
      expect(crlA.entries.map((e) => e.serialNumberHex)).toEqual([a.revoked.serialNumber]);
      // B's responder does not answer for A's serial (named by B's CA): it never issued it.
      expect(await ocspStatus(sut.pkiUrl, b.tenant.tenantId, b.tenant.caDer, a.active.serialNumber)).toEqual({
        kind: 'unknown',
      });
      // A's certificate is still Active in issuance and good at A's responder.
      expect((await a.tenant.get(`/v1/certificates/${a.active.certificateId}`)).json<Detail>().status).toBe(
        'Active',
      );
      expect(await ocspStatus(sut.pkiUrl, a.tenant.tenantId, a.tenant.caDer, a.active.serialNumber)).toEqual({
        kind: 'good',
      });
    });
  });

  /** The id of a tenant's CA as issuance stored it (the certificate detail has no caId). */
  function caIdOf(owned: Owned): string {
    const caId = caIds.get(owned.tenant.tenantId);
    if (!caId) throw new Error('no CA id');
    return caId;
  }

  async function loadCaIds(): Promise<void> {
    const client = new Client({ connectionString: sut.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ tenant_id: string; id: string }>(
        'SELECT tenant_id, id FROM issuance.certificate_authorities WHERE tenant_id = ANY($1)',
        [[a.tenant.tenantId, b.tenant.tenantId]],
      );
      for (const row of rows) caIds.set(row.tenant_id, row.id);
    } finally {
      await client.end();
    }
  }
});
