import 'reflect-metadata';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { Client } from 'pg';
import { startOcspResponder } from '@ca/ocsp-responder';
import { derToPem, generateEcKeyPair, parseCertificate, pemToDer } from '@ca/pki';
import { buildTestCsr } from '@ca/pki/testing';
import { RunningService } from '@ca/runtime';
import { RawAcmeClient } from './support/acme-client';
import { TestDnsServer } from './support/dns-server';
import { freePorts } from './support/http';
import {
  SystemUnderTest,
  TestTenant,
  adminRequest,
  createTenant,
  eventually,
  http,
  issueBody,
  ocspStatus,
  runOperatorCommand,
  startSystemUnderTest,
  systemModes,
} from './support';

/**
 * Read-your-writes on the distribution surface (docs/architecture.md#read-your-writes): what an
 * administrative call has answered is served at that instant, on every responder replica. Each
 * call is repeated, and the surface asked the moment the answer arrives, since a race shows only
 * now and then. On Postgres + NATS a second responder replica shares the `ocsp` schema, and both
 * are asked. Then with the responders stopped: issuance answers 503 and hands nothing out, a
 * revocation answers `"published": false` and reaches OCSP once a responder is back.
 */
jest.setTimeout(180_000);

/** How many times each call is made and checked at once. */
const ROUNDS = 4;

describe.each(systemModes('read-your-writes'))('read-your-writes (%s)', (mode) => {
  let sut: SystemUnderTest;
  /** The public surface of every responder replica. */
  const pkiUrls: string[] = [];
  let second: RunningService | undefined;
  /** The DNS server ACME's dns-01 challenges are answered from (ACME_DNS_RESOLVER). */
  let dns: TestDnsServer;
  let dnsDir: string;

  beforeAll(async () => {
    dnsDir = mkdtempSync(join(tmpdir(), 'ca-ryw-dns-'));
    dns = await TestDnsServer.start(join(dnsDir, 'dns-records'));
    sut = await startSystemUnderTest(mode, { env: { ACME_DNS_RESOLVER: dns.address } });
    pkiUrls.push(sut.pkiUrl);
    // The embedded database is one process's alone: a second replica only on Postgres.
    if (mode === 'postgres+nats') {
      const [port] = await freePorts(1);
      second = await startOcspResponder({
        config: { ...sut.config, pkiPort: port },
        databaseUrl: sut.databaseUrl,
        messaging: await sut.openMessaging('ocsp-responder-2'),
        logger: sut.serviceLogger('ocsp-responder-2'),
      });
      pkiUrls.push(`http://127.0.0.1:${port}`);
    }
  });

  afterAll(async () => {
    await second?.close();
    await sut?.stop();
    await dns?.close();
    if (dnsDir) rmSync(dnsDir, { recursive: true, force: true });
  });

  const surface = (base: string, tenantId: string, path: string) => `${base}/v1/tenants/${tenantId}/${path}`;

  /** Every replica answers 200 on every path, asked at once. */
  async function expectServed(tenantId: string, paths: string[]): Promise<void> {
    const asked = pkiUrls.flatMap((base) => paths.map((path) => ({ base, path })));
    const answers = await Promise.all(asked.map(({ base, path }) => http(surface(base, tenantId, path))));
    expect(answers.map((answer, i) => `${asked[i].path} ${answer.status}`)).toEqual(
      asked.map(({ path }) => `${path} 200`),
    );
  }

  /** The OCSP status every replica gives for the serial, asked at once. */
  async function ocspEverywhere(tenantId: string, caDer: Buffer, serial: string): Promise<string[]> {
    const statuses = await Promise.all(pkiUrls.map((base) => ocspStatus(base, tenantId, caDer, serial)));
    return statuses.map((status) => status.kind);
  }

  const allAre = (kind: string) => pkiUrls.map(() => kind);

  /** The path of the certificate's CRL Distribution Point under the tenant's base, e.g. `crl`. */
  function cdpPath(certificatePem: string, tenantId: string): string {
    const [cdp] = parseCertificate(pemToDer(certificatePem)).crlDistributionPointUrls;
    const base = `/v1/tenants/${tenantId}/`;
    return cdp.slice(cdp.indexOf(base) + base.length);
  }

  it('serves every certificate and CRL path of a CA the moment initialize answers (v1 and v2)', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const v1 = await createTenant(sut);
      await expectServed(v1.tenantId, ['ca.pem', 'ca.crt', 'crl']);

      const v2 = await createTenant(sut, { ca: false });
      const answer = await v2.post('/v2/ca/initialize', {
        commonName: 'Freshness Root',
        organization: 'Acme Corp',
        country: 'US',
        validityYears: 5,
      });
      expect(answer.status).toBe(200);
      await expectServed(v2.tenantId, [
        'ca.pem',
        'ca.crt',
        'crl',
        'root.crl',
        'issuing-ca.pem',
        'issuing-ca.crt',
      ]);
    }
  });

  it("serves a rollover CA, its CRL and its leaves' OCSP the moment POST /v2/ca/issuing answers", async () => {
    const tenant = await createTenant(sut);
    for (let round = 0; round < 2; round++) {
      // Every replica has the tenant's CAs in memory when the new one is added.
      await expectServed(tenant.tenantId, ['ca.pem']);
      const added = await tenant.post('/v2/ca/issuing', {});
      expect(added.status).toBe(201);
      const { caId, certificatePem } = added.json<{ caId: string; certificatePem: string }>();
      await expectServed(tenant.tenantId, [`ca/${caId}.pem`, `ca/${caId}.crt`, `ca/${caId}/crl`]);
      // Its leaves: every replica knows the new CA (none answers from a list of CAs cached before it).
      const leaf = await tenant.issue(issueBody());
      expect(
        await ocspEverywhere(tenant.tenantId, Buffer.from(pemToDer(certificatePem)), leaf.serialNumber),
      ).toEqual(allAre('good'));
    }
  });

  describe('a tenant with a CA', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(sut);
    });

    async function expectGoodAndCdp(certificatePem: string, serialNumber: string): Promise<void> {
      expect(await ocspEverywhere(tenant.tenantId, tenant.caDer, serialNumber)).toEqual(allAre('good'));
      await expectServed(tenant.tenantId, [cdpPath(certificatePem, tenant.tenantId)]);
    }

    it('answers good, and serves the CDP, the moment v1, v2 and CSR issuance answer', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const v1 = await tenant.issue(issueBody());
        await expectGoodAndCdp(v1.certificatePem, v1.serialNumber);
        const v2 = await tenant.issue(
          issueBody({
            usage: 'Server',
            commonName: 'fresh.example.com',
            subjectAlternativeNames: ['fresh.example.com'],
            validityDays: 90,
          }),
          '/v2/certificates',
        );
        await expectGoodAndCdp(v2.certificatePem, v2.serialNumber);
        const fromCsr = await tenant.issue(issueBody({ csrPem: await csrPem() }), '/v2/certificates');
        await expectGoodAndCdp(fromCsr.certificatePem, fromCsr.serialNumber);
      }
    });

    it('answers good for a renewal the moment it answers', async () => {
      const original = await tenant.issue(issueBody());
      for (let round = 0; round < ROUNDS; round++) {
        const renewed = await tenant.post(`/v1/certificates/${original.certificateId}/renew`, {
          validityDays: 30,
        });
        expect(renewed.status).toBe(200);
        const body = renewed.json<{ serialNumber: string; certificatePem: string }>();
        await expectGoodAndCdp(body.certificatePem, body.serialNumber);
      }
    });

    it('answers revoked the moment a revocation answers, with "published": true', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const issued = await tenant.issue(issueBody());
        const revoked = await tenant.post(`/v1/certificates/${issued.certificateId}/revoke`, {
          reason: 'key on a stolen laptop',
          reasonCode: 'KeyCompromise',
        });
        expect(revoked.status).toBe(200);
        expect(revoked.json<{ published: boolean }>().published).toBe(true);
        expect(await ocspEverywhere(tenant.tenantId, tenant.caDer, issued.serialNumber)).toEqual(
          allAre('revoked'),
        );
      }
    });
  });

  it('answers good, and serves the certificate, the moment an ACME order answers valid', async () => {
    const tenant = await createTenant(sut);
    const policy = await adminRequest(sut, 'PUT', '/v2/policy', tenant.bearer, {
      allowedDnsSuffixes: ['ryw.test'],
    });
    expect(policy.status).toBe(200);
    const account = await openAcmeAccount(tenant);
    for (let round = 0; round < ROUNDS; round++) {
      const name = `host-${round}.ryw.test`;
      const order = await account.readyOrder(name);
      const keys = await generateEcKeyPair(false);
      const csr = Buffer.from(await buildTestCsr(keys, name)).toString('base64url');
      const finalized = await account.post(order.finalize, { csr });
      expect(finalized.status).toBe(200);
      // RFC 8555 7.4: valid with its certificate URL at once, or processing until it is; either
      // way the instant the order says valid, the certificate is good on every replica.
      let view = finalized.json<{ status: string; certificate?: string }>();
      for (let polls = 0; view.status === 'processing' && polls < 200; polls++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        view = (await account.post(order.url, '')).json();
      }
      expect(view.status).toBe('valid');
      const chain = await account.post(view.certificate!, '');
      expect(chain.status).toBe(200);
      const leaf = new X509Certificate(chain.text);
      expect(await ocspEverywhere(tenant.tenantId, tenant.caDer, leaf.serialNumber)).toEqual(allAre('good'));
      await expectServed(tenant.tenantId, [cdpPath(leaf.toString(), tenant.tenantId)]);
    }
  });

  it('answers unknown, never good, for a serial whose issuance the transaction refused after the responder had it', async () => {
    const tenant = await createTenant(sut);
    const db = new Client({ connectionString: sut.databaseUrl });
    await db.connect();
    try {
      // Every status row the responder stores for the tenant, kept even once the row is gone: the
      // only place the serial of a certificate never handed out can be learnt from.
      await db.query(
        'CREATE TABLE IF NOT EXISTS public.ryw_statuses_seen (tenant_id uuid, serial_number text)',
      );
      await db.query(
        `CREATE OR REPLACE FUNCTION public.ryw_record_status() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO public.ryw_statuses_seen VALUES (NEW.tenant_id, NEW.serial_number); RETURN NEW; END $$`,
      );
      await db.query('DROP TRIGGER IF EXISTS ryw_record_status ON ocsp.certificate_status');
      await db.query(
        `CREATE TRIGGER ryw_record_status AFTER INSERT ON ocsp.certificate_status
           FOR EACH ROW EXECUTE FUNCTION public.ryw_record_status()`,
      );
      const kept = await tenant.issue(issueBody());
      expect(await runOperatorCommand(sut, ['tenant', 'set-limit', tenant.tenantId, '1'])).toMatchObject({
        code: 0,
      });
      // The plan limit is checked in issuance's transaction, after the responder stored the
      // status (docs/architecture.md#read-your-writes): the refusal comes once issuance has it.
      let refusals = 0;
      await eventually(
        async () => {
          const answer = await tenant.post('/v1/certificates', issueBody());
          if (answer.status === 409) refusals++;
          return refusals >= ROUNDS || undefined;
        },
        30_000,
        'issuances refused at the plan limit',
      );
      const listed = (await tenant.get('/v1/certificates')).json<{
        certificates: { serialNumber: string }[];
      }>().certificates;
      const handedOut = new Set(listed.map((c) => c.serialNumber));
      expect(handedOut).toContain(kept.serialNumber);
      const { rows } = await db.query<{ serial_number: string }>(
        'SELECT serial_number FROM public.ryw_statuses_seen WHERE tenant_id = $1',
        [tenant.tenantId],
      );
      const neverIssued = rows.map((row) => row.serial_number).filter((serial) => !handedOut.has(serial));
      // Each refused issuance reached the responder first: the case this test is about.
      expect(neverIssued).toHaveLength(refusals);
      for (const serial of neverIssued)
        expect(await ocspEverywhere(tenant.tenantId, tenant.caDer, serial)).toEqual(allAre('unknown'));
      expect(await ocspEverywhere(tenant.tenantId, tenant.caDer, kept.serialNumber)).toEqual(allAre('good'));
    } finally {
      await db
        .query('DROP TRIGGER IF EXISTS ryw_record_status ON ocsp.certificate_status')
        .catch(() => undefined);
      await db.end();
    }
  });

  it('answers revoked for an issuing CA the moment its revocation answers', async () => {
    const tenant = await createTenant(sut, { ca: false });
    const initialized = await tenant.post('/v2/ca/initialize', {
      commonName: 'Freshness Root',
      organization: 'Acme Corp',
      country: 'US',
      validityYears: 5,
    });
    const { certificatePem: rootPem, issuingCa } = initialized.json<{
      certificatePem: string;
      issuingCa: { caId: string; certificatePem: string };
    }>();
    const revoked = await tenant.post(`/v2/ca/${issuingCa.caId}/revoke`, {
      reason: 'key compromised',
      reasonCode: 'KeyCompromise',
    });
    expect(revoked.status).toBe(200);
    expect(revoked.json<{ published: boolean }>().published).toBe(true);
    const serial = new X509Certificate(issuingCa.certificatePem).serialNumber;
    const statuses = await Promise.all(
      pkiUrls.map((base) => ocspStatus(base, tenant.tenantId, Buffer.from(pemToDer(rootPem)), serial)),
    );
    expect(statuses.map((status) => status.kind)).toEqual(allAre('revoked'));
  });

  describe('with the responders stopped', () => {
    let tenant: TestTenant;
    let issued: { certificateId: string; serialNumber: string };

    beforeAll(async () => {
      tenant = await createTenant(sut);
      issued = await tenant.issue(issueBody());
      await stopResponders();
    });

    afterAll(async () => {
      await startResponders();
    });

    it('answers 503 with Retry-After to an issuance and hands nothing out or counts it', async () => {
      const before = (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>().certificates;
      const answer = await tenant.post('/v1/certificates', issueBody());
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.text).not.toContain('BEGIN CERTIFICATE');
      const after = (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>().certificates;
      expect(after).toHaveLength(before.length);
    });

    it('records a revocation with "published": false, which OCSP answers once a responder is back', async () => {
      const revoked = await tenant.post(`/v1/certificates/${issued.certificateId}/revoke`, {
        reason: 'decommissioned',
        reasonCode: 'CessationOfOperation',
      });
      expect(revoked.status).toBe(200);
      expect(revoked.json<{ published: boolean }>().published).toBe(false);
      const detail = (await tenant.get(`/v1/certificates/${issued.certificateId}`)).json<{
        status: string;
      }>();
      expect(detail.status).toBe('Revoked');
      await startResponders();
      await eventually(
        async () =>
          (await ocspEverywhere(tenant.tenantId, tenant.caDer, issued.serialNumber)).every(
            (kind) => kind === 'revoked',
          ) || undefined,
        15_000,
        'the revocation in OCSP once the responder is back',
      );
    });
  });

  /** An ACME account of the tenant (EAB), whose orders are proved through dns-01. */
  async function openAcmeAccount(tenant: TestTenant) {
    const client = await RawAcmeClient.create(`${sut.gatewayUrl}/acme/${tenant.tenantId}/directory`);
    const eab = await tenant.post('/v2/acme/eab-keys', {});
    expect(eab.status).toBe(201);
    const { keyId, hmacKey } = eab.json<{ keyId: string; hmacKey: string }>();
    const newAccount = client.directory.newAccount;
    const created = await client.post(
      newAccount,
      await client.jws(newAccount, {
        termsOfServiceAgreed: true,
        externalAccountBinding: await client.externalAccountBinding(keyId, hmacKey),
      }),
    );
    expect(created.status).toBe(201);
    const kid = { jwk: undefined, kid: created.headers.get('location')! };
    const post = async (url: string, payload: unknown) =>
      client.post(url, await client.jws(url, payload, kid));
    const thumbprint = await calculateJwkThumbprint(client.jwk);
    /** An order whose every name is proved through dns-01: ready to finalize. */
    const readyOrder = async (...names: string[]) => {
      const created = await post(client.directory.newOrder, {
        identifiers: names.map((value) => ({ type: 'dns', value })),
      });
      expect(created.status).toBe(201);
      const view = created.json<{ authorizations: string[]; finalize: string }>();
      for (const authz of view.authorizations) {
        const { challenges, identifier } = (await post(authz, '')).json<{
          identifier: { value: string };
          challenges: { type: string; url: string; token: string }[];
        }>();
        const challenge = challenges.find((c) => c.type === 'dns-01')!;
        // RFC 8555 8.4: the TXT value is base64url(SHA-256(token "." thumbprint)).
        const txt = createHash('sha256').update(`${challenge.token}.${thumbprint}`).digest('base64url');
        dns.txt.set(`_acme-challenge.${identifier.value}`, [txt]);
        await post(challenge.url, {});
        await eventually(
          async () => (await post(authz, '')).json<{ status: string }>().status === 'valid' || undefined,
          20_000,
          'the authorization valid',
        );
      }
      return { url: created.headers.get('location')!, ...view };
    };
    return { post, readyOrder };
  }

  /** The responder of the system and the second replica, stopped; started again by startResponders. */
  let stopped = false;
  async function stopResponders(): Promise<void> {
    await responderOf(sut).close();
    await second?.close();
    stopped = true;
  }

  async function startResponders(): Promise<void> {
    if (!stopped) return;
    stopped = false;
    const messaging =
      mode === 'embedded' ? sut.system.messaging : await sut.openMessaging('ocsp-responder-1');
    const restarted = await startOcspResponder({
      config: sut.config,
      databaseUrl: sut.databaseUrl,
      messaging,
      logger: sut.serviceLogger('ocsp-responder'),
    });
    replaceResponder(sut, restarted);
    if (second) {
      second = await startOcspResponder({
        config: { ...sut.config, pkiPort: Number(new URL(pkiUrls[1]).port) },
        databaseUrl: sut.databaseUrl,
        messaging: await sut.openMessaging('ocsp-responder-2b'),
        logger: sut.serviceLogger('ocsp-responder-2'),
      });
    }
  }
});

function responderOf(sut: SystemUnderTest): RunningService {
  const responder = sut.system.services.find((service) => service.name === 'ocsp-responder');
  if (!responder) throw new Error('no ocsp-responder in the system');
  return responder;
}

/** The system stops what is in its list: the restarted responder takes the stopped one's place. */
function replaceResponder(sut: SystemUnderTest, restarted: RunningService): void {
  const services = sut.system.services;
  services[services.indexOf(responderOf(sut))] = restarted;
}

/** A PKCS#10 request of a fresh P-256 key (PKI.js), PEM. */
async function csrPem(): Promise<string> {
  return derToPem(await buildTestCsr(await generateEcKeyPair(false), 'csr-client'), 'CERTIFICATE REQUEST');
}
