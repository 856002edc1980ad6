import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { ErrorCode, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { describeIfOpenssl } from '@ca/pki/testing';
import { Detail, IssuedCertificate, Summary, TestTenant, createTenant, issueBody } from './support/admin-api';
import { HttpAnswer, eventually, http } from './support/http';
import { TempFiles, eventuallyCrl, eventuallyRevokedInOcsp, ocspStatus, opensslAsync } from './support/pki';
import { expectProblem, expectValidationProblem } from './support/problems';
import { OpsResult, runOps, runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * Revocation reasons as RFC 5280 5.3.1 defines them, and a certificateHold that can be released:
 * over the admin API with real tokens, straight to issuance over the bus, and as relying parties
 * see it with the openssl CLI (CRL text, OCSP over HTTP). Embedded, and on Postgres + NATS when
 * DATABASE_URL and NATS_URL are set.
 */
jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'apps', 'cli', 'src', 'main.ts');
/** The bound a revocation meets on the distribution surface; a release meets the same. */
const PROPAGATION_MS = 5_000;

describe.each(systemModes('hold and reasons suite'))(
  'revocation reasons and certificate hold (%s)',
  (mode) => {
    let sut: SystemUnderTest;
    let tenant: TestTenant;
    let issuance: RpcClient<IssuanceApi>;
    let sql: Client;
    const files = new TempFiles();

    beforeAll(async () => {
      sut = await startSystemUnderTest(mode, { shippedBus: true });
      tenant = await createTenant(sut, { commonName: 'Hold Test Root' });
      // The system's own messaging: the in-process transport reaches only this process's handlers.
      issuance = sut.system.messaging.rpcClient<IssuanceApi>();
      sql = new Client({ connectionString: sut.databaseUrl });
      await sql.connect();
    });

    afterAll(async () => {
      files.remove();
      await sql?.end();
      await issuance?.close();
      await sut?.stop();
    });

    const issue = (t = tenant): Promise<IssuedCertificate> =>
      t.issue(issueBody({ clientId: `hold-${randomBytes(3).toString('hex')}` }));
    const revoke = (id: string, reasonCode?: string, t = tenant): Promise<HttpAnswer> =>
      t.post(`/v1/certificates/${id}/revoke`, { reason: `test ${reasonCode ?? 'default'}`, reasonCode });
    const hold = async (id: string, t = tenant): Promise<string> => {
      const answer = await revoke(id, 'CertificateHold', t);
      expect(answer.status).toBe(200);
      return answer.json<{ revokedAt: string }>().revokedAt;
    };
    const release = (id: string, body?: unknown, t = tenant): Promise<HttpAnswer> =>
      t.post(`/v2/certificates/${id}/release-hold`, body);
    const detail = async (id: string, t = tenant): Promise<Detail> =>
      (await t.get(`/v1/certificates/${id}`)).json<Detail>();

    /** The served CRL once `accept` holds (within the propagation bound). */
    const crlWhere = (accept: (serials: string[]) => boolean, what: string, t = tenant) =>
      eventuallyCrl(sut.pkiUrl, t.tenantId, (crl) => accept(crl.entries.map((e) => e.serialNumberHex)), what);

    /** `openssl crl -text` of the served CRL. */
    async function opensslCrlText(der: Buffer): Promise<string> {
      const path = files.write(`crl-${randomUUID()}.der`, der);
      const out = await opensslAsync(['crl', '-inform', 'DER', '-in', path, '-noout', '-text']);
      expect(out.status).toBe(0);
      return out.stdout;
    }

    /** `openssl ocsp` asking the tenant's responder over HTTP about one certificate, checking the signature. */
    async function opensslOcsp(certificatePem: string, t = tenant): Promise<string> {
      const ca = files.write(`ca-${randomUUID()}.pem`, t.caPem);
      const leaf = files.write(`leaf-${randomUUID()}.pem`, certificatePem);
      const url = `${sut.pkiUrl}/v1/tenants/${t.tenantId}/ocsp`;
      const out = await opensslAsync([
        'ocsp',
        '-issuer',
        ca,
        '-cert',
        leaf,
        '-CAfile',
        ca,
        '-url',
        url,
        '-no_nonce',
      ]);
      expect(out.stderr).toMatch(/Response verify OK/);
      return out.stdout;
    }

    describe('reason codes (RFC 5280 5.3.1)', () => {
      it.each(['RemoveFromCrl', 'CaCompromise', 'AaCompromise'])(
        'refuses %s for an end-entity certificate with 400 on reasonCode, leaving it Active',
        async (reasonCode) => {
          const target = await issue();
          const problem = expectValidationProblem(await revoke(target.certificateId, reasonCode), [
            'reasonCode',
          ]);
          expect(problem.errors![0].message).toMatch(reasonCode === 'RemoveFromCrl' ? /delta CRL/ : /CA/);
          expect((await detail(target.certificateId)).status).toBe('Active');
        },
      );

      it('refuses them in issuance too, for a command that did not come through the gateway', async () => {
        const target = await issue();
        for (const reasonCode of ['RemoveFromCrl', 'CaCompromise', 'AaCompromise'] as const) {
          await expect(
            issuance.send(IssuancePattern.RevokeCertificate, {
              tenantId: tenant.tenantId,
              principal: 'hold-test',
              certificateId: target.certificateId,
              request: { reason: 'straight to issuance', reasonCode },
            }),
          ).rejects.toMatchObject({
            code: ErrorCode.ValidationFailed,
            errors: [expect.objectContaining({ field: 'reasonCode' })],
          });
        }
        expect((await detail(target.certificateId)).status).toBe('Active');
      });

      it('describes the accepted reasons and the release route in the OpenAPI document', async () => {
        const document = (await http(`${sut.gatewayUrl}/openapi.json`)).json<{
          paths: Record<
            string,
            Record<
              string,
              {
                operationId: string;
                description?: string;
                responses: object;
                requestBody?: { required?: boolean };
              }
            >
          >;
          components: {
            schemas: Record<
              string,
              { properties: Record<string, { enum?: string[]; description?: string }> }
            >;
          };
        }>();
        const reasonCode = document.components.schemas.RevokeCertificateRequest.properties.reasonCode;
        expect(reasonCode.enum).not.toContain('RemoveFromCrl');
        expect(reasonCode.description).toMatch(/CaCompromise/);
        const operation = document.paths['/v2/certificates/{certificateId}/release-hold'].post;
        expect(operation.operationId).toBe('releaseCertificateHold');
        expect(operation.requestBody?.required).not.toBe(true);
        expect(operation.description).toMatch(/CERTIFICATE_NOT_ON_HOLD/);
        expect(operation.description).toMatch(/CERTIFICATE_LIMIT_REACHED/);
        expect(Object.keys(operation.responses)).toEqual(
          expect.arrayContaining(['200', '400', '403', '404', '409']),
        );
      });
    });

    describeIfOpenssl('hold, release and hold again, as relying parties see it', () => {
      it('lists the hold in the CRL and OCSP, then good again within 5 s of the release, and held again', async () => {
        const target = await issue();
        const bystander = await issue();
        await hold(bystander.certificateId);
        const heldAt = await hold(target.certificateId);

        // Held: the CRL lists it with reason "Certificate Hold", OCSP says revoked (certificateHold).
        const held = await crlWhere((s) => s.includes(target.serialNumber), 'hold listed in the CRL');
        const heldText = await opensslCrlText(held.der);
        const entry = heldText.split(`Serial Number: ${target.serialNumber}`)[1]?.split('Serial Number:')[0];
        expect(entry).toMatch(/Certificate Hold/);
        const status = await eventuallyRevokedInOcsp(
          sut.pkiUrl,
          tenant.tenantId,
          tenant.caDer,
          target.serialNumber,
        );
        expect(status).toEqual({ kind: 'revoked', revocationTime: new Date(heldAt), reasonCode: 6 });
        const heldOcsp = await opensslOcsp(target.certificatePem);
        expect(heldOcsp).toMatch(/: revoked/);
        expect(heldOcsp).toMatch(/Reason: certificateHold/);

        // Released: Active again everywhere the admin API shows it.
        const sentAt = Date.now();
        const answer = await release(target.certificateId, { reason: 'laptop found again' });
        expect(answer.status).toBe(200);
        expect(answer.json()).toEqual({
          certificateId: target.certificateId,
          releasedAt: expect.stringMatching(/Z$/),
          heldSince: heldAt,
        });
        const shown = await detail(target.certificateId);
        expect(shown.status).toBe('Active');
        expect(shown).not.toHaveProperty('revokedAt');
        expect(shown).not.toHaveProperty('revocationReason');
        const listed = (await tenant.get('/v1/certificates')).json<{ certificates: Summary[] }>()
          .certificates;
        expect(listed.find((c) => c.certificateId === target.certificateId)?.status).toBe('Active');

        // OCSP good and the next CRL without it, both within the bound a revocation meets.
        await eventually(
          async () =>
            (await ocspStatus(sut.pkiUrl, tenant.tenantId, tenant.caDer, target.serialNumber)).kind === 'good'
              ? true
              : undefined,
          PROPAGATION_MS,
          'OCSP good after the release',
        );
        const released = await crlWhere((s) => !s.includes(target.serialNumber), 'next CRL without the hold');
        expect(Date.now() - sentAt).toBeLessThan(PROPAGATION_MS);
        expect(released.crl.crlNumber).toBeGreaterThan(held.crl.crlNumber);
        // Only the released entry went: the other hold is still listed.
        expect(released.crl.entries.map((e) => e.serialNumberHex)).toContain(bystander.serialNumber);
        const releasedText = await opensslCrlText(released.der);
        expect(releasedText).not.toContain(`Serial Number: ${target.serialNumber}`);
        expect(releasedText).not.toMatch(/Remove From CRL/i);
        expect(await opensslOcsp(target.certificatePem)).toMatch(/: good/);

        // It can be held again; a held certificate revoked again is still 409.
        const heldAgainAt = await hold(target.certificateId);
        expectProblem(await revoke(target.certificateId, 'KeyCompromise'), 409, 'CONFLICT');
        const again = await eventuallyRevokedInOcsp(
          sut.pkiUrl,
          tenant.tenantId,
          tenant.caDer,
          target.serialNumber,
        );
        expect(again).toEqual({ kind: 'revoked', revocationTime: new Date(heldAgainAt), reasonCode: 6 });
        const reheld = await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          (crl) =>
            crl.entries.some(
              (e) =>
                e.serialNumberHex === target.serialNumber && e.revocationDate.toISOString() === heldAgainAt,
            ),
          'the new hold listed with its own date',
        );
        expect(reheld.crl.entries.filter((e) => e.serialNumberHex === target.serialNumber)).toHaveLength(1);
      });

      it('lets a released certificate be revoked for good, and then refuses to release it', async () => {
        const target = await issue();
        await hold(target.certificateId);
        // The responder applies events after the API answers: until the hold reaches it, it still
        // answers the good of before the hold, which is not the release's good. So the hold is
        // seen first; after it, the only good is the release's, and the next revocation is the last.
        const heldStatus = await eventuallyRevokedInOcsp(
          sut.pkiUrl,
          tenant.tenantId,
          tenant.caDer,
          target.serialNumber,
        );
        expect(heldStatus).toMatchObject({ kind: 'revoked', reasonCode: 6 });
        expect((await release(target.certificateId)).status).toBe(200);
        await eventually(
          async () =>
            (await ocspStatus(sut.pkiUrl, tenant.tenantId, tenant.caDer, target.serialNumber)).kind === 'good'
              ? true
              : undefined,
          PROPAGATION_MS,
          'OCSP good after the release',
        );
        const revoked = await revoke(target.certificateId, 'KeyCompromise');
        expect(revoked.status).toBe(200);
        const status = await eventuallyRevokedInOcsp(
          sut.pkiUrl,
          tenant.tenantId,
          tenant.caDer,
          target.serialNumber,
        );
        expect(status).toMatchObject({ kind: 'revoked', reasonCode: 1 });
        // The CRL still listing the hold may be served until the next one is published.
        await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          (crl) => crl.entries.some((e) => e.serialNumberHex === target.serialNumber && e.reasonCode === 1),
          'revocation for good listed',
        );
        expect(await opensslOcsp(target.certificatePem)).toMatch(/Reason: keyCompromise/);
        const refused = expectProblem(await release(target.certificateId), 409, 'CERTIFICATE_NOT_ON_HOLD');
        expect(refused.detail).toMatch(/not on hold/);
      });
    });

    // Real Postgres only: a lock on the responder's status table holds its event handling back
    // while issuance goes on (PGlite is one session, where the lock would stop every service).
    (mode === 'postgres+nats' ? describe : describe.skip)('a responder behind the events', () => {
      it('answers hold, release and revocation for good in their order, and ends on the last', async () => {
        const target = await issue();
        const status = () => ocspStatus(sut.pkiUrl, tenant.tenantId, tenant.caDer, target.serialNumber);
        await eventually(async () => ((await status()).kind === 'good' ? true : undefined), PROPAGATION_MS);
        const stall = new Client({ connectionString: sut.databaseUrl });
        await stall.connect();
        try {
          await stall.query('BEGIN');
          await stall.query('LOCK TABLE ocsp.certificate_status IN SHARE MODE'); // reads go on
          await hold(target.certificateId);
          expect((await release(target.certificateId)).status).toBe(200);
          expect((await revoke(target.certificateId, 'KeyCompromise')).status).toBe(200);
          // The good of before the hold: a good answer alone does not show a release arrived.
          expect(await status()).toEqual({ kind: 'good' });
        } finally {
          await stall.query('COMMIT');
          await stall.end();
        }
        const seen: string[] = [];
        await eventually(
          async () => {
            const now = await status();
            const shown = now.kind === 'revoked' ? `revoked ${now.reasonCode}` : now.kind;
            if (seen.at(-1) !== shown) seen.push(shown);
            return shown === 'revoked 1' ? true : undefined;
          },
          PROPAGATION_MS,
          'OCSP revoked for good',
        );
        // Never back to a state already left: what was seen is the history, in its order.
        const history = ['good', 'revoked 6', 'good', 'revoked 1'];
        let at = 0;
        for (const shown of seen) {
          at = history.indexOf(shown, at);
          expect(at).toBeGreaterThanOrEqual(0);
        }
      });
    });

    describe('who may release what', () => {
      it('refuses an Active certificate and one revoked for good with 409 CERTIFICATE_NOT_ON_HOLD', async () => {
        const active = await issue();
        const superseded = await issue();
        expect((await revoke(superseded.certificateId, 'Superseded')).status).toBe(200);
        const notRevoked = expectProblem(
          await release(active.certificateId),
          409,
          'CERTIFICATE_NOT_ON_HOLD',
          'ca-manager/certificate-not-on-hold',
        );
        expect(notRevoked.detail).toMatch(/not revoked/);
        expectProblem(await release(superseded.certificateId), 409, 'CERTIFICATE_NOT_ON_HOLD');
        expect((await detail(superseded.certificateId)).status).toBe('Revoked');
      });

      it("answers 403 for another tenant's certificate, 404 for an unknown one, 403 without certificates:write", async () => {
        const target = await issue();
        await hold(target.certificateId);
        const other = await createTenant(sut, { ca: false });
        expectProblem(await release(target.certificateId, undefined, other), 403, 'FORBIDDEN');
        expectProblem(await release(randomUUID()), 404, 'NOT_FOUND');
        expectValidationProblem(await release('not-a-uuid'), []);
        const readOnly = await tenant.tokenWithScope('certificates:read');
        expectProblem(
          await tenant.post(`/v2/certificates/${target.certificateId}/release-hold`, undefined, {
            bearer: readOnly,
          }),
          403,
          'FORBIDDEN',
        );
        expect((await detail(target.certificateId)).status).toBe('Revoked');
      });

      it.each([
        ['an empty reason', { reason: '' }, ['reason']],
        ['a reason of 256 characters', { reason: 'r'.repeat(256) }, ['reason']],
        ['a reason that is not a string', { reason: 42 }, ['reason']],
        ['an unknown field', { reasonCode: 'Unspecified' }, ['reasonCode']],
      ])('refuses %s with 400 and leaves the hold', async (_name, body, fields) => {
        const target = await issue();
        await hold(target.certificateId);
        expectValidationProblem(await release(target.certificateId, body), fields);
        expect((await detail(target.certificateId)).status).toBe('Revoked');
      });

      it('accepts no body, and keeps the hold and its release in the history and the audit log', async () => {
        const [quiet, explained] = [await issue(), await issue()];
        await hold(quiet.certificateId);
        await hold(explained.certificateId);
        // A JSON null or array is not an empty body.
        for (const raw of ['null', '[]']) {
          expectValidationProblem(
            await tenant.post(`/v2/certificates/${quiet.certificateId}/release-hold`, undefined, { raw }),
            ['body'],
          );
        }
        expect((await release(quiet.certificateId)).status).toBe(200);
        const requestId = `release-${randomUUID()}`;
        const answer = await tenant.post(
          `/v2/certificates/${explained.certificateId}/release-hold`,
          { reason: 'r'.repeat(255) },
          { headers: { 'x-request-id': requestId } },
        );
        expect(answer.status).toBe(200);
        const { rows } = await sql.query<{
          certificate_id: string;
          hold_reason: string;
          release_reason: string | null;
        }>(
          `SELECT certificate_id, hold_reason, release_reason, released_by FROM issuance.hold_releases
          WHERE certificate_id = ANY($1::uuid[]) ORDER BY id`,
          [[quiet.certificateId, explained.certificateId]],
        );
        expect(rows).toEqual([
          expect.objectContaining({
            certificate_id: quiet.certificateId,
            hold_reason: 'test CertificateHold',
            release_reason: null,
          }),
          expect.objectContaining({
            certificate_id: explained.certificateId,
            release_reason: 'r'.repeat(255),
          }),
        ]);
        const audit = await eventually(
          async () => {
            const found = await sql.query<{
              action: string;
              result: number;
              tenant_id: string;
              resource: string;
            }>('SELECT action, result, tenant_id, resource FROM gateway.audit_events WHERE request_id = $1', [
              requestId,
            ]);
            return found.rows[0];
          },
          5_000,
          'audit entry of the release',
        );
        expect(audit).toEqual({
          action: 'certificate.release-hold',
          result: 200,
          tenant_id: tenant.tenantId,
          resource: `/v2/certificates/${explained.certificateId}/release-hold`,
        });
      });

      it('lets exactly one of two concurrent releases succeed', async () => {
        const target = await issue();
        await hold(target.certificateId);
        const answers = await Promise.all([release(target.certificateId), release(target.certificateId)]);
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        expectProblem(
          answers.find((a) => a.status === 409)!,
          409,
          'CERTIFICATE_NOT_ON_HOLD',
        );
      });
    });

    it('releases a hold with the CLI (cert release-hold)', async () => {
      const target = await issue();
      await hold(target.certificateId);
      const env = { ...process.env, CA_MANAGER_URL: sut.gatewayUrl, CA_MANAGER_TOKEN: tenant.bearer };
      const cli = (...args: string[]) =>
        runProgram(process.execPath, ['-r', require.resolve('@swc-node/register'), CLI, ...args], {
          env,
          timeoutMs: 30_000,
        });
      const released = await cli('cert', 'release-hold', target.certificateId, '--reason', 'found again');
      expect(released).toMatchObject({ status: 0, stderr: '' });
      expect(released.stdout).toMatch(new RegExp(`^Released: +${target.certificateId}$`, 'm'));
      expect((await detail(target.certificateId)).status).toBe('Active');
      const again = await cli('cert', 'release-hold', target.certificateId);
      expect(again.status).toBe(1);
      expect(again.stderr).toMatch(/^error: 409 CERTIFICATE_NOT_ON_HOLD/);
    });

    describe('plan limit', () => {
      /** `npm run -s ops -- …` as an operator runs it against this system. */
      function ops(...args: string[]): Promise<OpsResult> {
        const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: undefined };
        Object.assign(env, { DATA_DIR: sut.config.dataDir, JWT_PUBLIC_KEY: sut.tokens.publicKeyPem });
        if (mode === 'postgres+nats') {
          Object.assign(env, { DATABASE_URL: sut.databaseUrl, CA_KEK: randomBytes(32).toString('base64') });
        } else {
          delete env.DATABASE_URL;
          delete env.NATS_URL;
        }
        return runOps(args, env);
      }

      // ops → gateway outbox → tenant.updated → issuance: well under a second, unless the machine is loaded.
      const LIMIT_PROPAGATION_MS = 15_000;

      it('refuses a release that would pass the limit with 409 CERTIFICATE_LIMIT_REACHED', async () => {
        const limited = await createTenant(sut, { commonName: 'Hold Limit Root' });
        // Issuance learns a limit from the gateway's tenant.updated events, in order: a limit of 0
        // seen in effect, then 1, so exactly one certificate is Active afterwards. A probe issued
        // before the 0 arrives is revoked at once, so it takes no slot.
        expect(await ops('tenant', 'set-limit', limited.tenantId, '0')).toMatchObject({ code: 0 });
        await eventually(
          async () => {
            const probe = await limited.post('/v1/certificates', issueBody());
            if (probe.status === 200) {
              const { certificateId } = probe.json<IssuedCertificate>();
              expect((await revoke(certificateId, 'Superseded', limited)).status).toBe(200);
            }
            return probe.status === 409 ? true : undefined;
          },
          LIMIT_PROPAGATION_MS,
          'limit of 0 in effect',
        );
        expect(await ops('tenant', 'set-limit', limited.tenantId, '1')).toMatchObject({ code: 0 });
        const first = await eventually(
          async () => {
            const answer = await limited.post('/v1/certificates', issueBody());
            return answer.status === 200 ? answer.json<IssuedCertificate>() : undefined;
          },
          LIMIT_PROPAGATION_MS,
          'first issue',
        );
        expect((await limited.post('/v1/certificates', issueBody())).status).toBe(409);
        await hold(first.certificateId, limited);
        const second = await issue(limited);
        expectProblem(
          await release(first.certificateId, undefined, limited),
          409,
          'CERTIFICATE_LIMIT_REACHED',
        );
        expect((await detail(first.certificateId, limited)).status).toBe('Revoked');
        expect((await revoke(second.certificateId, 'Superseded', limited)).status).toBe(200);
        expect((await release(first.certificateId, undefined, limited)).status).toBe(200);
        expect((await detail(first.certificateId, limited)).status).toBe('Active');
      });
    });
  },
);
