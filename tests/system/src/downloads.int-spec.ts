import 'reflect-metadata';
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { Pool } from 'pg';
import { createLogger } from '@ca/observability';
import { describeIfOpenssl, spawnOpenssl } from '@ca/pki/testing';
import { RunningService } from '@ca/runtime';
import { startGateway } from '@ca/gateway';
import { TestTenant, createTenant, issueBody, keyMatchesCertificate } from './support/admin-api';
import { HttpAnswer, freePorts, http } from './support/http';
import { LogCapture, captureLogs } from './support/logs';
import { expectProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * responseFormat File and passwordProtected (docs/api.md#issuance-answer, docs/api.md#renew-a-certificate;
 * docs/api.md#downloads), as a user sees them: links without a bearer token, valid one hour, the private key
 * and PKCS#12 links good for one download (also under concurrent requests), payloads stored
 * sealed and erased; PKCS#12 bundles that openssl and Node's tls open with the returned password.
 */
jest.setTimeout(60_000);

const modes = systemModes('downloads suite');
const HOUR_MS = 3_600_000;
const sorted = (value: object) => Object.keys(value).sort();

interface FileDelivery {
  certificateDownloadUrl: string;
  privateKeyDownloadUrl: string;
  downloadUrlExpiresAt: string;
  pfxDownloadUrl?: string;
  password?: string;
}

const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
/** What the gateway stores a link under: SHA-256 of the token's first 16 bytes (never the token). */
const lookupHashOf = (url: string) =>
  createHash('sha256')
    .update(Buffer.from(tokenOf(url), 'base64url').subarray(0, 16))
    .digest();

function expectFile(answer: HttpAnswer, contentType: string): void {
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe(contentType);
  expect(answer.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"/\\]+"$/);
  expect(answer.headers.get('cache-control')).toBe('no-store');
}

describe.each(modes)('pre-signed downloads and PKCS#12 (%s)', (mode) => {
  let sut: SystemUnderTest;
  let logs: LogCapture;
  let tenant: TestTenant;
  let sql: Pool;

  beforeAll(async () => {
    logs = captureLogs('debug');
    sut = await startSystemUnderTest(mode, { serviceLogger: logs.serviceLogger });
    tenant = await createTenant(sut);
    sql = new Pool({ connectionString: sut.databaseUrl, max: 2 });
  });

  afterAll(async () => {
    await sql?.end();
    await sut?.stop();
  });

  const storedRows = async (url: string) =>
    (await sql.query('SELECT * FROM gateway.downloads WHERE lookup_hash = $1', [lookupHashOf(url)])).rows;

  it('v1 issue with File answers links instead of PEMs; the certificate link serves again and again, the key link once', async () => {
    const before = Date.now();
    const answer = await tenant.post('/v1/certificates', issueBody({ responseFormat: 'File' }));
    expect(answer.status).toBe(200);
    const issued = answer.json<FileDelivery & { certificateId: string }>();
    expect(sorted(issued)).toEqual([
      'certificateDownloadUrl',
      'certificateId',
      'downloadUrlExpiresAt',
      'expiresAt',
      'privateKeyDownloadUrl',
      'serialNumber',
    ]);
    for (const url of [issued.certificateDownloadUrl, issued.privateKeyDownloadUrl]) {
      expect(url).toMatch(new RegExp(`^${sut.gatewayUrl}/v1/downloads/[A-Za-z0-9_-]{64}$`));
    }
    const expiresAt = Date.parse(issued.downloadUrlExpiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + HOUR_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + HOUR_MS + 1000);

    // What waits is sealed: neither the PEM nor the link's token is in the row.
    const [row] = await storedRows(issued.privateKeyDownloadUrl);
    expect(row.single_use).toBe(true);
    expect(Buffer.from(row.sealed).includes(Buffer.from('PRIVATE KEY'))).toBe(false);
    expect(JSON.stringify(row)).not.toContain(tokenOf(issued.privateKeyDownloadUrl));

    // No bearer token needed.
    const certificate = await http(issued.certificateDownloadUrl);
    expectFile(certificate, 'application/x-pem-file');
    expect(new X509Certificate(certificate.text).serialNumber).toBe(
      answer.json<{ serialNumber: string }>().serialNumber,
    );
    expect((await http(issued.certificateDownloadUrl)).body.equals(certificate.body)).toBe(true);

    const key = await http(issued.privateKeyDownloadUrl);
    expectFile(key, 'application/x-pem-file');
    expect(keyMatchesCertificate(key.text, certificate.text)).toBe(true);
    expectProblem(await http(issued.privateKeyDownloadUrl), 404, 'NOT_FOUND');
    expect(await storedRows(issued.privateKeyDownloadUrl)).toHaveLength(0); // erased on download

    // The link token is a credential: never in the logs.
    expect(logs.text()).not.toContain(tokenOf(issued.privateKeyDownloadUrl));
    expect(logs.text()).not.toContain(tokenOf(issued.certificateDownloadUrl));
  });

  it('serves a single-use link to exactly one of several concurrent requests; HEAD does not use it up', async () => {
    const issued = (
      await tenant.post('/v1/certificates', issueBody({ responseFormat: 'File' }))
    ).json<FileDelivery>();
    const head = await http(issued.privateKeyDownloadUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/x-pem-file');
    const answers = await Promise.all(Array.from({ length: 6 }, () => http(issued.privateKeyDownloadUrl)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(() => createPrivateKey(winner.text)).not.toThrow();
  });

  it.each([
    ['an unknown token', 'A'.repeat(64)],
    ['a garbled token', 'not-a-token'],
    ['a token with its key cut', 'A'.repeat(40)],
  ])('answers %s with a 404 Problem Details', async (_name, token) => {
    expectProblem(await http(`${sut.gatewayUrl}/v1/downloads/${token}`), 404, 'NOT_FOUND');
  });

  it('refuses a link whose key part was changed, without using the link up', async () => {
    const issued = (
      await tenant.post('/v1/certificates', issueBody({ responseFormat: 'File' }))
    ).json<FileDelivery>();
    const url = issued.privateKeyDownloadUrl;
    const last = url.at(-1) === 'A' ? 'B' : 'A';
    expectProblem(await http(`${url.slice(0, -1)}${last}`), 404, 'NOT_FOUND');
    expect((await http(url)).status).toBe(200);
  });

  it('v2 issue and v1/v2 renew deliver as File too', async () => {
    const v2 = await tenant.post(
      '/v2/certificates',
      issueBody({ usage: 'Server', subjectAlternativeNames: ['files.example.com'], responseFormat: 'File' }),
    );
    expect(v2.status).toBe(200);
    const issued = v2.json<FileDelivery & { certificateId: string }>();
    expect(issued).not.toHaveProperty('certificatePem');
    expectFile(await http(issued.certificateDownloadUrl), 'application/x-pem-file');

    for (const path of ['/v1', '/v2']) {
      const renewed = await tenant.post(`${path}/certificates/${issued.certificateId}/renew`, {
        validityDays: 30,
        responseFormat: 'File',
      });
      expect(renewed.status).toBe(200);
      const body = renewed.json<FileDelivery>();
      expect(sorted(body)).toEqual([
        'certificateDownloadUrl',
        'downloadUrlExpiresAt',
        'expiresAt',
        'newCertificateId',
        'privateKeyDownloadUrl',
        'serialNumber',
      ]);
      const certificate = await http(body.certificateDownloadUrl);
      const key = await http(body.privateKeyDownloadUrl);
      expect(keyMatchesCertificate(key.text, certificate.text)).toBe(true);
    }
  });

  describe('with a clock moved forward (a gateway replica started with an injected clock)', () => {
    let replica: RunningService;
    let replicaUrl: string;
    let now = Date.now();

    beforeAll(async () => {
      const [port] = await freePorts(1);
      replicaUrl = `http://127.0.0.1:${port}`;
      replica = await startGateway(
        {
          config: { ...sut.config, gatewayPort: port, gatewayPublicUrl: replicaUrl },
          databaseUrl: sut.databaseUrl,
          messaging: sut.system.messaging,
          logger: createLogger({ level: 'silent', service: 'gateway-replica' }),
        },
        { clock: () => new Date(now) },
      );
    });

    afterAll(async () => {
      await replica?.close();
    });

    it('serves a link until its hour is over, then answers 404 and erases the payload', async () => {
      now = Date.now();
      const answer = await http(`${replicaUrl}/v1/certificates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(issueBody({ responseFormat: 'File' })),
      });
      expect(answer.status).toBe(200);
      const issued = answer.json<FileDelivery>();
      expect(Date.parse(issued.downloadUrlExpiresAt)).toBe(now + HOUR_MS);

      now += HOUR_MS - 1000;
      expect((await http(issued.certificateDownloadUrl)).status).toBe(200);
      now += 2000;
      expectProblem(await http(issued.certificateDownloadUrl), 404, 'NOT_FOUND');
      expectProblem(await http(issued.privateKeyDownloadUrl), 404, 'NOT_FOUND');

      // The housekeeping job erases what was never fetched.
      expect(await storedRows(issued.privateKeyDownloadUrl)).toHaveLength(1);
      const { DownloadLinks, DownloadRepository } = await import('@ca/gateway/testing');
      const { openGatewayDatabase } = await import('@ca/gateway');
      const db = await openGatewayDatabase(sut.databaseUrl, 1);
      try {
        const links = new DownloadLinks(new DownloadRepository(db), replicaUrl, () => new Date(now));
        expect(await links.removeExpired()).toBeGreaterThanOrEqual(2);
      } finally {
        await db.destroy();
      }
      expect(await storedRows(issued.privateKeyDownloadUrl)).toHaveLength(0);
      expect(await storedRows(issued.certificateDownloadUrl)).toHaveLength(0);
    });
  });

  describe('passwordProtected: PKCS#12', () => {
    const expectPassword = (password: string | undefined) => {
      expect(password).toMatch(/^[A-Za-z0-9_-]{22,}$/); // base64url of at least 16 random bytes
      expect(logs.text()).not.toContain(password);
    };

    it('Text: pfxBase64 and a password besides the PEMs; Node tls accepts it, not with a wrong password', async () => {
      const answer = await tenant.post('/v1/certificates', issueBody({ passwordProtected: true }));
      expect(answer.status).toBe(200);
      const issued = answer.json<{ certificatePem: string; pfxBase64: string; password: string }>();
      expect(sorted(issued)).toEqual([
        'certificateId',
        'certificatePem',
        'chainPem',
        'expiresAt',
        'password',
        'pfxBase64',
        'privateKeyPem',
        'serialNumber',
      ]);
      expectPassword(issued.password);
      const pfx = Buffer.from(issued.pfxBase64, 'base64');
      expect(() => createSecureContext({ pfx, passphrase: issued.password })).not.toThrow();
      expect(() => createSecureContext({ pfx, passphrase: `${issued.password}x` })).toThrow();
      const second = (await tenant.post('/v1/certificates', issueBody({ passwordProtected: true }))).json<{
        password: string;
      }>();
      expect(second.password).not.toBe(issued.password);
    });

    describeIfOpenssl('opened by openssl pkcs12', () => {
      it('File (v1 renew): a single-use PKCS#12 link that openssl opens to the same key, certificate and CA', async () => {
        const original = await tenant.issue(issueBody());
        const answer = await tenant.post(`/v1/certificates/${original.certificateId}/renew`, {
          validityDays: 30,
          responseFormat: 'File',
          passwordProtected: true,
        });
        expect(answer.status).toBe(200);
        const renewed = answer.json<Required<FileDelivery>>();
        expect(sorted(renewed)).toEqual([
          'certificateDownloadUrl',
          'downloadUrlExpiresAt',
          'expiresAt',
          'newCertificateId',
          'password',
          'pfxDownloadUrl',
          'privateKeyDownloadUrl',
          'serialNumber',
        ]);
        expectPassword(renewed.password);
        const pfx = await http(renewed.pfxDownloadUrl);
        expectFile(pfx, 'application/x-pkcs12');
        expectProblem(await http(renewed.pfxDownloadUrl), 404, 'NOT_FOUND');
        const certificate = (await http(renewed.certificateDownloadUrl)).text;
        const key = (await http(renewed.privateKeyDownloadUrl)).text;

        const opened = spawnOpenssl(['pkcs12', '-passin', `pass:${renewed.password}`, '-nodes'], pfx.body);
        expect(opened.status).toBe(0);
        const pems =
          opened.stdout.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
        const raws = pems.map((pem) => new X509Certificate(pem).raw);
        expect(raws.some((raw) => raw.equals(new X509Certificate(certificate).raw))).toBe(true);
        expect(raws.some((raw) => raw.equals(tenant.caDer))).toBe(true);
        const keyPem = opened.stdout.match(
          /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/,
        )![0];
        const der = (pem: string) => createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
        expect(der(keyPem).equals(der(key))).toBe(true);
        expect(spawnOpenssl(['pkcs12', '-passin', 'pass:wrong', '-nodes'], pfx.body).status).not.toBe(0);
      });
    });
  });
});
