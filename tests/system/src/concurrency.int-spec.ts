import 'reflect-metadata';
import { X509Certificate, randomUUID } from 'node:crypto';
import { pemToDer } from '@ca/pki';
import { adminRequest, createTenant, issueBody } from './support/admin-api';
import { eventually, http, sleep } from './support/http';
import { eventuallyCrl, eventuallyRevokedInOcsp } from './support/pki';
import { expectProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * Races a user can start: the state machine and the one-CA rule hold when 50 identical
 * requests arrive at once. Exactly one wins, the others get 409 CONFLICT, and the public surface
 * shows exactly the winner's result.
 */
jest.setTimeout(120_000);

const RACERS = 50;

const statusCounts = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});

describe.each(systemModes('concurrency suite'))('concurrent requests (%s)', (mode) => {
  let sut: SystemUnderTest;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it(`revokes a certificate once under ${RACERS} concurrent revocations: one 200, ${RACERS - 1} 409s, one CRL entry`, async () => {
    const tenant = await createTenant(sut);
    const { certificateId, serialNumber } = await tenant.issue(issueBody());
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        tenant.post(`/v1/certificates/${certificateId}/revoke`, {
          reason: `racer ${i}`,
          reasonCode: i % 2 === 0 ? 'KeyCompromise' : 'Superseded',
        }),
      ),
    );
    expect(statusCounts(answers.map((a) => a.status))).toEqual({ 200: 1, 409: RACERS - 1 });
    for (const conflict of answers.filter((a) => a.status === 409)) expectProblem(conflict, 409, 'CONFLICT');
    const winner = answers.find((a) => a.status === 200)!.json<{ revokedAt: string }>();
    const winnerIndex = answers.findIndex((a) => a.status === 200);

    // The stored revocation is the winner's, and the certificate reads Revoked.
    const detail = (await tenant.get(`/v1/certificates/${certificateId}`)).json<{
      status: string;
      revokedAt: string;
      revocationReason: string;
    }>();
    expect(detail).toEqual(
      expect.objectContaining({
        status: 'Revoked',
        revokedAt: winner.revokedAt,
        revocationReason: `racer ${winnerIndex}`,
      }),
    );

    // The served CRL lists the serial exactly once, with the winner's reason; it stays that way.
    const { crl } = await eventuallyCrl(
      sut.pkiUrl,
      tenant.tenantId,
      (c) => c.entries.some((e) => e.serialNumberHex === serialNumber),
      'CRL listing the raced serial',
    );
    await sleep(1_000);
    const settled = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true);
    for (const served of [crl, settled.crl]) {
      const entries = served.entries.filter((e) => e.serialNumberHex === serialNumber);
      expect(entries).toHaveLength(1);
      expect(entries[0].reasonCode).toBe(winnerIndex % 2 === 0 ? 1 : 4);
    }
    expect(settled.crl.entries).toHaveLength(1);
    const ocsp = await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, serialNumber);
    expect(ocsp).toEqual(
      expect.objectContaining({ kind: 'revoked', reasonCode: winnerIndex % 2 === 0 ? 1 : 4 }),
    );
  });

  it(`creates one CA under ${RACERS} concurrent initializations of a tenant: one 200, ${RACERS - 1} 409s`, async () => {
    const tenantId = randomUUID();
    const bearer = await sut.tokens.sign(tenantId);
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        adminRequest(sut, 'POST', '/v1/ca/initialize', bearer, {
          commonName: `Racing Root ${i}`,
          organization: 'Acme Corp',
          country: 'US',
          validityYears: 5,
        }),
      ),
    );
    expect(statusCounts(answers.map((a) => a.status))).toEqual({ 200: 1, 409: RACERS - 1 });
    for (const conflict of answers.filter((a) => a.status === 409)) expectProblem(conflict, 409, 'CONFLICT');
    const winner = answers.find((a) => a.status === 200)!.json<{ certificatePem: string }>();
    const winnerDer = Buffer.from(pemToDer(winner.certificatePem));

    // The public surface serves the winner's certificate, as PEM and as DER, and nothing else later.
    const served = await eventually(
      async () => {
        const answer = await http(`${sut.pkiUrl}/v1/tenants/${tenantId}/ca.pem`);
        return answer.status === 200 ? answer.text : undefined;
      },
      5_000,
      'ca.pem of the raced tenant',
    );
    expect(Buffer.from(pemToDer(served)).equals(winnerDer)).toBe(true);
    await sleep(500);
    const der = await http(`${sut.pkiUrl}/v1/tenants/${tenantId}/ca.crt`);
    expect(der.status).toBe(200);
    expect(der.body.equals(winnerDer)).toBe(true);

    // Issuance signs with that one CA: a certificate issued now chains to the served certificate.
    const issued = await adminRequest(sut, 'POST', '/v1/certificates', bearer, issueBody());
    expect(issued.status).toBe(200);
    const leaf = new X509Certificate(issued.json<{ certificatePem: string }>().certificatePem);
    expect(leaf.verify(new X509Certificate(winnerDer).publicKey)).toBe(true);
  });
});
