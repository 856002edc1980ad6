import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssuedCertificate, TestTenant, createTenant, issueBody } from './support/admin-api';
import { derToPem, pemToDer } from '@ca/pki';
import { http } from './support/http';
import { eventuallyCrl, eventuallyRevokedInOcsp, ocspStatus, opensslAsync } from './support/pki';
import { describeIfPrograms } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * docs/api.md#add-an-issuing-ca: POST /v2/ca/issuing gives a root-only tenant its first issuing CA
 * and rolls a tenant's issuing CA over; new and renewed leaves are signed by the new CA, whose
 * chain verifies with openssl, and GET /v2/ca shows the replaced CA as retired.
 */
jest.setTimeout(120_000);

type Issued = IssuedCertificate & { chainPem: string };
interface Added {
  caId: string;
  certificatePem: string;
  chainPem: string;
  expiresAt: string;
  keyAlgorithm: string;
  retiredCaId?: string;
}
interface CaRow {
  caId: string;
  role: string;
  state: string;
}

describeIfPrograms(['openssl'], 'issuing CA rollover', () => {
  describe.each(systemModes('issuing CA rollover suite'))('(%s)', (mode) => {
    let sut: SystemUnderTest;
    let dir: string;
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };
    const verify = (rootPem: string, leaf: Issued) =>
      opensslAsync([
        'verify',
        '-x509_strict',
        '-CAfile',
        file('root.pem', rootPem),
        '-untrusted',
        file('chain.pem', leaf.chainPem),
        file('leaf.pem', leaf.certificatePem),
      ]);
    const cas = async (tenant: TestTenant) =>
      (await tenant.get('/v2/ca')).json<{ cas: CaRow[] }>().cas.map(({ caId, role, state }) => ({
        caId,
        role,
        state,
      }));
    const issuerOf = (leaf: Issued) => new X509Certificate(leaf.certificatePem).issuer;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'rollover-'));
      sut = await startSystemUnderTest(mode, { shippedBus: true });
    });

    afterAll(async () => {
      await sut?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('rolls a v2 issuing CA over: new and renewed leaves under the new CA, the old one retired', async () => {
      const tenant = await createTenant(sut, { ca: false });
      const init = await tenant.post('/v2/ca/initialize', {
        commonName: 'Rollover Root',
        organization: 'Acme Corp',
        country: 'US',
        validityYears: 5,
      });
      expect(init.status).toBe(200);
      const { certificatePem: rootPem, issuingCa } = init.json<{
        certificatePem: string;
        issuingCa: { caId: string; certificatePem: string };
      }>();
      const before = (await tenant.issue(issueBody({ validityDays: 30 }), '/v2/certificates')) as Issued;
      const keptOld = (await tenant.issue(issueBody({ validityDays: 30 }), '/v2/certificates')) as Issued;

      const answer = await tenant.post('/v2/ca/issuing', {});
      expect(answer.status).toBe(201);
      const added = answer.json<Added>();
      expect(added).toMatchObject({ keyAlgorithm: 'P-256', retiredCaId: issuingCa.caId });
      expect(added.chainPem).toBe(added.certificatePem);
      const cert = new X509Certificate(added.certificatePem);
      expect(cert.subject).toContain('CN=Rollover Root Issuing CA 2');
      expect(cert.verify(new X509Certificate(rootPem).publicKey)).toBe(true);
      // pathLenConstraint 0 and the root's CRL (root.crl) as its CDP.
      const text = (
        await opensslAsync(['x509', '-noout', '-text', '-in', file('new-ca.pem', added.certificatePem)])
      ).stdout;
      expect(text).toMatch(/CA:TRUE, pathlen:0/);
      expect(text).toContain(`/v1/tenants/${tenant.tenantId}/root.crl`);

      expect(await cas(tenant)).toEqual([
        { caId: expect.any(String), role: 'root', state: 'active' },
        { caId: issuingCa.caId, role: 'issuing', state: 'retired' },
        { caId: added.caId, role: 'issuing', state: 'active' },
      ]);

      const after = (await tenant.issue(issueBody({ validityDays: 30 }), '/v2/certificates')) as Issued;
      expect(issuerOf(after)).toBe(cert.subject);
      expect(after.chainPem.trim()).toBe(added.certificatePem.trim());
      expect((await verify(rootPem, after)).status).toBe(0);
      // Its leaves find their own issuer's CRL and certificate after the next rollover too.
      const leafText = (
        await opensslAsync(['x509', '-noout', '-text', '-in', file('after.pem', after.certificatePem)])
      ).stdout;
      expect(leafText).toContain(`/v1/tenants/${tenant.tenantId}/ca/${added.caId}/crl`);
      expect(leafText).toContain(`/v1/tenants/${tenant.tenantId}/ca/${added.caId}.crt`);
      // The old leaf still verifies with its own chain; renewing it signs under the new CA.
      expect((await verify(rootPem, before)).status).toBe(0);
      const renewed = await tenant.post(`/v1/certificates/${before.certificateId}/renew`, {
        validityDays: 30,
      });
      expect(renewed.status).toBe(200);
      expect(issuerOf(renewed.json<Issued>())).toBe(cert.subject);

      // Revocation after the rollover: a leaf of each CA goes on its own CA's CRL and OCSP.
      const keptNew = (await tenant.issue(issueBody({ validityDays: 30 }), '/v2/certificates')) as Issued;
      for (const victim of [before, after]) {
        const revoked = await tenant.post(`/v1/certificates/${victim.certificateId}/revoke`, {
          reason: 'lost',
          reasonCode: 'KeyCompromise',
        });
        expect(revoked.status).toBe(200);
      }
      const rootId = (await cas(tenant)).find(({ role }) => role === 'root')!.caId;
      const base = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
      const each = [
        { caId: issuingCa.caId, pem: issuingCa.certificatePem, revoked: before, kept: keptOld },
        { caId: added.caId, pem: added.certificatePem, revoked: after, kept: keptNew },
      ];
      for (const { caId, pem, revoked, kept } of each) {
        const caDer = pemToDer(pem);
        await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, caDer, revoked.serialNumber);
        expect(await ocspStatus(sut.pkiUrl, tenant.tenantId, caDer, kept.serialNumber)).toMatchObject({
          kind: 'good',
        });
        const { der, crl } = await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          (listed) => listed.entries.some((entry) => entry.serialNumberHex === revoked.serialNumber),
          `CRL of ${caId}`,
          `ca/${caId}/crl`,
        );
        // Only its own CA's leaves: the other CA's revoked leaf is not on it.
        expect(crl.entries.map((entry) => entry.serialNumberHex)).toEqual([revoked.serialNumber]);
        const crlPem = file(`${caId}.crl.pem`, derToPem(der, 'X509 CRL'));
        const checked = await opensslAsync([
          'crl',
          '-in',
          crlPem,
          '-CAfile',
          file(`${caId}.pem`, pem),
          '-noout',
        ]);
        expect(checked.stderr).toMatch(/verify OK/);
        const withCrl = (leaf: Issued) =>
          opensslAsync([
            'verify',
            '-crl_check',
            '-CAfile',
            file('root.pem', rootPem),
            '-untrusted',
            file(`${caId}.pem`, pem),
            '-CRLfile',
            crlPem,
            file('checked-leaf.pem', leaf.certificatePem),
          ]);
        expect((await withCrl(kept)).status).toBe(0);
        const refused = await withCrl(revoked);
        expect(refused.status).not.toBe(0);
        expect(`${refused.stdout}${refused.stderr}`).toMatch(/certificate revoked/);
        const ocsp = await opensslAsync([
          'ocsp',
          '-issuer',
          file(`${caId}.pem`, pem),
          '-cert',
          file('victim.pem', revoked.certificatePem),
          '-url',
          `${base}/ocsp`,
          '-CAfile',
          file('root.pem', rootPem),
          '-verify_other',
          file(`${caId}.pem`, pem),
        ]);
        expect(`${ocsp.stdout}${ocsp.stderr}`).toMatch(/: revoked/);
        expect(ocsp.stderr).toMatch(/Response verify OK/);
        const crt = await http(`${base}/ca/${caId}.crt`);
        expect(crt.status).toBe(200);
        expect(Buffer.from(crt.body)).toEqual(Buffer.from(caDer));
      }
      expect(Buffer.from((await http(`${base}/ca/${rootId}.crt`)).body)).toEqual(
        Buffer.from(pemToDer(rootPem)),
      );
      // The old CA's leaves still verify, and the paths they name (CDP /crl, caIssuers
      // issuing-ca.crt) still give their own issuer's CRL and certificate, not the new CA's.
      expect((await verify(rootPem, keptOld)).status).toBe(0);
      const named = await http(`${base}/crl`);
      expect(named.status).toBe(200);
      expect(named.body).toEqual((await http(`${base}/ca/${issuingCa.caId}/crl`)).body);
      expect(named.body).not.toEqual((await http(`${base}/ca/${added.caId}/crl`)).body);
      expect(Buffer.from((await http(`${base}/issuing-ca.crt`)).body)).toEqual(
        Buffer.from(pemToDer(issuingCa.certificatePem)),
      );
    });

    it('gives a v1 root-only tenant its first issuing CA; leaves are signed by it from then on', async () => {
      const tenant = await createTenant(sut, { validityYears: 2 });
      const before = await tenant.issue(issueBody({ validityDays: 10 }));
      expect(new X509Certificate(before.certificatePem).issuer).toBe(
        new X509Certificate(tenant.caPem).subject,
      );

      const answer = await tenant.post('/v2/ca/issuing', { validityDays: 365 });
      expect(answer.status).toBe(201);
      const added = answer.json<Added>();
      expect(added.retiredCaId).toBeUndefined();
      // The root signed leaves: its one CRL, at its own path, is the new CA's CDP.
      const rootId = (await cas(tenant)).find(({ role }) => role === 'root')!.caId;
      const text = (
        await opensslAsync(['x509', '-noout', '-text', '-in', file('first.pem', added.certificatePem)])
      ).stdout;
      expect(text).toContain(`/v1/tenants/${tenant.tenantId}/ca/${rootId}/crl`);
      expect(await cas(tenant)).toEqual([
        { caId: rootId, role: 'root', state: 'active' },
        { caId: added.caId, role: 'issuing', state: 'active' },
      ]);
      const after = (await tenant.issue(issueBody({ validityDays: 10 }), '/v2/certificates')) as Issued;
      expect(issuerOf(after)).toBe(new X509Certificate(added.certificatePem).subject);
      expect((await verify(tenant.caPem, after)).status).toBe(0);
      // A leaf never outlives its issuer: the new CA ends in a year.
      const tooLong = await tenant.post('/v2/certificates', issueBody({ validityDays: 400 }));
      expect(tooLong.status).toBe(400);
    });

    it('a v1 root-only tenant revokes its added issuing CA: on the root CRL, OCSP revoked, no more leaves (409)', async () => {
      const tenant = await createTenant(sut, { validityYears: 2 });
      // A leaf the root signed itself, revoked before the issuing CA is added.
      const rootLeaf = await tenant.issue(issueBody({ validityDays: 10 }));
      expect(
        (
          await tenant.post(`/v1/certificates/${rootLeaf.certificateId}/revoke`, {
            reason: 'lost',
            reasonCode: 'KeyCompromise',
          })
        ).status,
      ).toBe(200);
      await eventuallyRevokedInOcsp(
        sut.pkiUrl,
        tenant.tenantId,
        pemToDer(tenant.caPem),
        rootLeaf.serialNumber,
      );
      const added = (await tenant.post('/v2/ca/issuing', { validityDays: 365 })).json<Added>();
      const revoked = await tenant.post(`/v2/ca/${added.caId}/revoke`, {
        reason: 'key leaked',
        reasonCode: 'KeyCompromise',
      });
      expect(revoked.status).toBe(200);
      const rows = (await tenant.get('/v2/ca')).json<{ cas: (CaRow & { serialNumber: string })[] }>().cas;
      expect(rows.map(({ role, state }) => `${role}:${state}`)).toEqual(['root:active', 'issuing:revoked']);
      const rootId = rows.find(({ role }) => role === 'root')!.caId;
      const serial = rows.find(({ caId }) => caId === added.caId)!.serialNumber;
      // The root signed leaves, so its one CRL (at its own path) is where the issuing CA goes.
      const { der } = await eventuallyCrl(
        sut.pkiUrl,
        tenant.tenantId,
        (listed) => listed.entries.some((entry) => entry.serialNumberHex === serial),
        'root CRL listing the issuing CA',
        `ca/${rootId}/crl`,
      );
      const checked = await opensslAsync([
        'crl',
        '-in',
        file('revoked-first.crl.pem', derToPem(der, 'X509 CRL')),
        '-CAfile',
        file('v1-root.pem', tenant.caPem),
        '-noout',
      ]);
      expect(checked.stderr).toMatch(/verify OK/);
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, pemToDer(tenant.caPem), serial);
      // One request naming the root's revoked leaf and the revoked issuing CA: the root's one signer
      // answers each CertID with its own status (RFC 6960 2.2), as openssl reads them.
      const both = await opensslAsync([
        'ocsp',
        '-issuer',
        file('v1-root.pem', tenant.caPem),
        '-cert',
        file('root-leaf.pem', rootLeaf.certificatePem),
        '-cert',
        file('added-ca.pem', added.certificatePem),
        '-url',
        `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
        '-CAfile',
        file('v1-root.pem', tenant.caPem),
      ]);
      expect(both.stderr).toMatch(/Response verify OK/);
      expect(both.stdout).toMatch(
        /root-leaf\.pem: revoked[\s\S]*Reason: keyCompromise[\s\S]*added-ca\.pem: revoked/,
      );
      const refused = await tenant.post('/v2/certificates', issueBody({ validityDays: 10 }));
      expect(refused.status).toBe(409);
      expect(refused.json<{ code: string }>().code).toBe('ISSUING_CA_REVOKED');
    });

    it('refuses an issuing CA that would outlive the root, and answers 404 without a CA', async () => {
      const tenant = await createTenant(sut, { validityYears: 1 });
      const tooLong = await tenant.post('/v2/ca/issuing', { validityDays: 400 });
      expect(tooLong.status).toBe(400);
      expect(tooLong.json<{ code: string }>().code).toBe('VALIDATION_FAILED');
      const bad = await tenant.post('/v2/ca/issuing', { keyAlgorithm: 'P-521' });
      expect(bad.status).toBe(400);
      const none = await createTenant(sut, { ca: false });
      expect((await none.post('/v2/ca/issuing', {})).status).toBe(404);
      const readOnly = await tenant.post(
        '/v2/ca/issuing',
        {},
        {
          bearer: await tenant.tokenWithScope('certificates:read'),
        },
      );
      expect(readOnly.status).toBe(403);
      expect((await cas(tenant)).map(({ role }) => role)).toEqual(['root']);
    });
  });
});
