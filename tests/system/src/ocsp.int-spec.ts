import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { X509Certificate, createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import {
  ErrorCode,
  IssuanceApi,
  IssuancePattern,
  IssuedCertificate,
  RevocationReasonCode,
  RevocationReasonCodes,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { transportKinds } from '@ca/messaging/testing';
import { TestDatabase, databaseKinds } from '@ca/persistence/testing';
import {
  OcspBasicResponseInfo,
  OcspResponseInfo,
  buildCertId,
  derToPem,
  parseCertificate,
  parseCrl,
  parseOcspRequest,
  parseOcspResponse,
  pemToDer,
} from '@ca/pki';
import { createTestPki, describeIfOpenssl, runOpenssl, spawnOpenssl } from '@ca/pki/testing';
import { HttpAnswer, http } from './support/http';
import { eventually as poll } from '@ca/messaging/testing';
import { ServiceCluster, ServiceName } from './support/service-cluster';
import { freshSubjectPublicKey } from './support/subject-key';

/**
 * OCSP over HTTP end to end (docs/ocsp.md, RFC 6960, RFC 5019): issuance, revocation and the
 * responder started as services, driven over RPC as the gateway would, without it; requests made
 * and responses checked by the openssl CLI. Also the CRL endpoint's HTTP semantics, and that the
 * surface keeps answering correctly while issuance is down. Every database kind × transport.
 */
jest.setTimeout(60_000);

/** A revocation reaches OCSP answers within this (docs/ocsp.md). */
const PROPAGATION_MS = 5_000;
const OCSP_RESPONSE = /^application\/ocsp-response(;|$)/;
/** id-pkix-ocsp-nocheck (RFC 6960 4.2.2.2.1). */
const OCSP_NOCHECK_OID = '1.3.6.1.5.5.7.48.1.5';
/** RFC 5019 6.2: what an authoritative answer says to caches, POST and GET alike. */
const CACHEABLE = /^public, max-age=(\d+), no-transform, must-revalidate$/;
/** A serial not seen yet: newer information is always available (RFC 6960 2.4). */
const NEVER_CACHED = 'no-cache, no-store';

/** DER of one element (definite length): enough to craft OCSP requests openssl will not write. */
function der(tag: number, ...parts: Uint8Array[]): Buffer {
  const content = Buffer.concat(parts);
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

/** OCSPRequest { TBSRequest { requestList, [2] { nonce extension } } } (RFC 6960 4.1.1). */
function craftedRequest(certIds: Uint8Array[], nonceExtnValue?: Uint8Array): Buffer {
  const nonceOid = Buffer.from('06092b0601050507300102', 'hex'); // id-pkix-ocsp-nonce
  const extensions = nonceExtnValue
    ? [der(0xa2, der(0x30, der(0x30, nonceOid, der(0x04, nonceExtnValue))))]
    : [];
  return der(0x30, der(0x30, der(0x30, ...certIds.map((certId) => der(0x30, certId))), ...extensions));
}

/** The caching headers of an answer naming no serial this responder has not seen. */
function expectCacheable(answer: HttpAnswer, info: OcspBasicResponseInfo, sentAt: number): void {
  const nextUpdate = info.responses[0].nextUpdate!.getTime();
  const cacheControl = answer.headers.get('cache-control')!;
  expect(cacheControl).toMatch(CACHEABLE);
  const maxAge = Number(CACHEABLE.exec(cacheControl)![1]);
  expect(maxAge).toBeGreaterThan(0);
  expect(maxAge).toBeLessThanOrEqual(Math.ceil((nextUpdate - sentAt) / 1000));
  expect(answer.headers.get('etag')).toBe(`"${createHash('sha256').update(answer.body).digest('hex')}"`);
  expect(Date.parse(answer.headers.get('last-modified')!)).toBe(info.responses[0].thisUpdate.getTime());
  expect(Date.parse(answer.headers.get('expires')!)).toBe(nextUpdate);
}

/** An answer no cache may keep: no-cache, no-store, and no validators or expiry at all. */
function expectNeverCached(answer: HttpAnswer): void {
  expect(answer.headers.get('cache-control')).toBe(NEVER_CACHED);
  for (const header of ['etag', 'last-modified', 'expires']) expect(answer.headers.get(header)).toBeNull();
}

const combinations = databaseKinds().flatMap((database) =>
  transportKinds().map((transport) => [database, transport] as const),
);
if (!process.env.DATABASE_URL || !process.env.NATS_URL)
  console.warn('OCSP suite: DATABASE_URL/NATS_URL not set, only embedded + in-process run');

interface TenantCa {
  tenantId: string;
  der: Buffer;
  pemPath: string;
}

interface RequestOptions {
  sha256?: boolean;
  nonce?: boolean;
  /** The issuer certificate the CertIDs are computed from; the tenant CA by default. */
  issuerPath?: string;
}

/** Polls every 50 ms until the propagation time is up. */
const eventually = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = PROPAGATION_MS) =>
  poll(probe, what, timeoutMs, 50);

function basic(answer: HttpAnswer): OcspBasicResponseInfo {
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(OCSP_RESPONSE);
  const info = parseOcspResponse(new Uint8Array(answer.body));
  expect(info.responseStatus).toBe('successful');
  return info as OcspBasicResponseInfo;
}

function statusOf(answer: HttpAnswer): OcspResponseInfo['responseStatus'] {
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(OCSP_RESPONSE);
  return parseOcspResponse(new Uint8Array(answer.body)).responseStatus;
}

describeIfOpenssl('OCSP responder', () => {
  describe.each(combinations)('(%s database, %s transport)', (databaseKind, transport) => {
    let cluster: ServiceCluster;
    let database: TestDatabase;
    let issuance: RpcClient<IssuanceApi>;
    let baseUrl: string;
    let workDir: string;
    let tenantA: TenantCa;
    let tenantB: TenantCa;
    let goodA: IssuedCertificate;
    let otherGoodA: IssuedCertificate;
    let revokedA: IssuedCertificate;
    let revokedAt: string;
    let goodB: IssuedCertificate;

    const ocspUrl = (tenantId: string) => `${baseUrl}/v1/tenants/${tenantId}/ocsp`;
    const crlUrl = (tenantId: string) => `${baseUrl}/v1/tenants/${tenantId}/crl`;
    const file = (name: string) => join(workDir, name);

    const start = (name: ServiceName) => cluster.start(name);
    const stop = (name: ServiceName) => cluster.stop(name);

    async function initializeCa(commonName: string): Promise<TenantCa> {
      const tenantId = randomUUID();
      const result = await issuance.send(IssuancePattern.InitializeCa, {
        tenantId,
        principal: 'ocsp-test',
        request: { commonName, organization: 'Acme', country: 'US', validityYears: 5 },
      });
      const pemPath = file(`ca-${tenantId}.pem`);
      writeFileSync(pemPath, result.certificatePem);
      return { tenantId, der: Buffer.from(pemToDer(result.certificatePem)), pemPath };
    }

    function issue(ca: TenantCa, commonName = 'ocsp client'): Promise<IssuedCertificate> {
      return issuance.send(IssuancePattern.IssueCertificate, {
        tenantId: ca.tenantId,
        principal: 'ocsp-test',
        subjectPublicKey: freshSubjectPublicKey(),
        request: {
          clientId: 'ocsp-test-client',
          commonName,
          organization: 'Acme',
          organizationalUnit: 'OCSP',
          country: 'US',
          validityDays: 30,
        },
      });
    }

    function revoke(ca: TenantCa, certificateId: string, reasonCode: RevocationReasonCode = 'KeyCompromise') {
      return issuance.send(IssuancePattern.RevokeCertificate, {
        tenantId: ca.tenantId,
        principal: 'ocsp-test',
        certificateId,
        request: { reason: `free text ${randomUUID()}`, reasonCode },
      });
    }

    /** A DER OCSPRequest as `openssl ocsp -reqout` writes it. */
    function ocspRequest(ca: TenantCa, serials: string[], options: RequestOptions = {}): Buffer {
      const path = file(`req-${randomUUID()}.der`);
      const args = [
        'ocsp',
        ...(options.sha256 ? ['-sha256'] : []),
        '-issuer',
        options.issuerPath ?? ca.pemPath,
      ];
      for (const serial of serials) args.push('-serial', `0x${serial}`);
      args.push(options.nonce === false ? '-no_nonce' : '-nonce', '-reqout', path);
      runOpenssl(args);
      return readFileSync(path);
    }

    /**
     * `openssl ocsp -respin` verifying the response against the CA (signature, delegated signer
     * chain and EKU) and printing each serial's status; with `request`, it checks the nonce too.
     */
    function opensslVerify(
      ca: TenantCa,
      response: Buffer,
      serials: string[],
      options: { sha256?: boolean; request?: Buffer } = {},
    ): { status: number | null; out: string } {
      const respPath = file(`resp-${randomUUID()}.der`);
      writeFileSync(respPath, response);
      const args = ['ocsp', '-respin', respPath, '-CAfile', ca.pemPath, '-resp_text'];
      if (options.request) {
        const reqPath = file(`req-${randomUUID()}.der`);
        writeFileSync(reqPath, options.request);
        args.push('-reqin', reqPath, '-no_nonce');
      } else {
        if (options.sha256) args.push('-sha256');
        args.push('-issuer', ca.pemPath);
        for (const serial of serials) args.push('-serial', `0x${serial}`);
        args.push('-no_nonce');
      }
      const result = spawnOpenssl(args);
      return { status: result.status, out: `${result.stdout}\n${result.stderr}` };
    }

    function post(tenantId: string, body: Uint8Array | string): Promise<HttpAnswer> {
      return http(ocspUrl(tenantId), {
        method: 'POST',
        headers: { 'content-type': 'application/ocsp-request' },
        body: typeof body === 'string' ? body : Buffer.from(body),
      });
    }

    /** Waits until the tenant's delegated signer exists (the responder says tryLater until then). */
    function signerReady(ca: TenantCa, serial: string): Promise<HttpAnswer> {
      const request = ocspRequest(ca, [serial], { nonce: false });
      return eventually(async () => {
        const answer = await post(ca.tenantId, request);
        return statusOf(answer) === 'successful' ? answer : undefined;
      }, `OCSP signer of tenant ${ca.tenantId}`);
    }

    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), 'ocsp-int-'));
      cluster = await ServiceCluster.start(databaseKind, transport);
      ({ database, issuance, baseUrl } = cluster);

      tenantA = await initializeCa('OCSP Test Root A');
      tenantB = await initializeCa('OCSP Test Root B');
      goodA = await issue(tenantA, 'good a');
      otherGoodA = await issue(tenantA, 'other good a');
      revokedA = await issue(tenantA, 'revoked a');
      goodB = await issue(tenantB, 'good b');
      revokedAt = (await revoke(tenantA, revokedA.certificateId, 'KeyCompromise')).revokedAt;
      await signerReady(tenantA, goodA.serialNumber);
      await signerReady(tenantB, goodB.serialNumber);
      const revokedRequest = ocspRequest(tenantA, [revokedA.serialNumber], { nonce: false });
      await eventually(async () => {
        const answer = basic(await post(tenantA.tenantId, revokedRequest));
        return answer.responses[0].status.kind === 'revoked' ? answer : undefined;
      }, 'revocation known to the responder');
    });

    afterAll(async () => {
      await cluster?.close();
      rmSync(workDir, { recursive: true, force: true });
    });

    describe('POST application/ocsp-request', () => {
      it.each([
        ['SHA-1 CertIDs with a nonce', { sha256: false, nonce: true }],
        ['SHA-1 CertIDs without a nonce', { sha256: false, nonce: false }],
        ['SHA-256 CertIDs with a nonce', { sha256: true, nonce: true }],
        ['SHA-256 CertIDs without a nonce', { sha256: true, nonce: false }],
      ])('answers good, revoked and unknown, verified by openssl (%s)', async (_, options) => {
        const neverIssued = `7${randomBytes(15).toString('hex').toUpperCase()}`;
        for (const serials of [
          [goodA.serialNumber],
          [revokedA.serialNumber],
          [neverIssued],
          [goodA.serialNumber, revokedA.serialNumber],
        ]) {
          const request = ocspRequest(tenantA, serials, options);
          const sentAt = Date.now();
          const answer = await post(tenantA.tenantId, request);
          const info = basic(answer);
          if (serials.includes(neverIssued)) expectNeverCached(answer);
          else if (options.nonce) expect(answer.headers.get('cache-control')).toBe('no-store');
          else expectCacheable(answer, info, sentAt);
          expect(info.responses).toHaveLength(serials.length);
          const verified = opensslVerify(tenantA, answer.body, serials, options);
          expect(verified.out).toContain('Response verify OK');
          expect(verified.status).toBe(0);
          for (const serial of serials) {
            if (serial === goodA.serialNumber) expect(verified.out).toMatch(new RegExp(`0x${serial}: good`));
            if (serial === neverIssued) expect(verified.out).toMatch(new RegExp(`0x${serial}: unknown`));
            if (serial === revokedA.serialNumber) {
              expect(verified.out).toMatch(
                new RegExp(
                  `0x${serial}: revoked\\s*\\n[^]*?Reason: keyCompromise\\s*\\n\\s*Revocation Time: `,
                ),
              );
            }
          }
          // The CertIDs are echoed as received, in request order.
          const requested = parseOcspRequest(new Uint8Array(request)).certIds;
          expect(info.responses.map((r) => Buffer.from(r.certIdDer))).toEqual(
            requested.map((c) => Buffer.from(c.der)),
          );
          const revokedEntry = info.responses.find((r) => r.serialNumberHex === revokedA.serialNumber);
          if (revokedEntry) {
            expect(revokedEntry.status).toEqual({
              kind: 'revoked',
              revocationTime: new Date(revokedAt),
              reasonCode: RevocationReasonCodes.KeyCompromise,
            });
          }
          for (const single of info.responses) {
            // RFC 6960 2.4: no nextUpdate for a serial not seen, so no client keeps the answer.
            if (single.status.kind === 'unknown') expect(single.nextUpdate).toBeUndefined();
            else expect(single.nextUpdate!.getTime()).toBeGreaterThan(single.thisUpdate.getTime());
            expect(single.thisUpdate.getTime()).toBeLessThanOrEqual(Date.now());
          }
        }
      });

      it('echoes the nonce, which openssl checks against its request; none without one', async () => {
        const request = ocspRequest(tenantA, [goodA.serialNumber], { nonce: true });
        const requestNonce = parseOcspRequest(new Uint8Array(request)).nonce;
        expect(requestNonce).toBeDefined();
        const answer = await post(tenantA.tenantId, request);
        expect(Buffer.from(basic(answer).nonce!)).toEqual(Buffer.from(requestNonce!));
        const checked = opensslVerify(tenantA, answer.body, [], { request });
        expect(checked.out).toContain('Response verify OK');
        expect(checked.out).not.toMatch(/no nonce in response|Nonce Verify error/i);
        expect(checked.out).toMatch(/OCSP Nonce/);

        // Another nonce, another signed answer (a nonce'd answer is never reused).
        const again = ocspRequest(tenantA, [goodA.serialNumber], { nonce: true });
        const second = basic(await post(tenantA.tenantId, again));
        expect(Buffer.from(second.nonce!)).toEqual(
          Buffer.from(parseOcspRequest(new Uint8Array(again)).nonce!),
        );
        expect(Buffer.from(second.nonce!)).not.toEqual(Buffer.from(requestNonce!));

        const withoutNonce = ocspRequest(tenantA, [goodA.serialNumber], { nonce: false });
        const plain = await post(tenantA.tenantId, withoutNonce);
        expect(basic(plain).nonce).toBeUndefined();
        const plainChecked = opensslVerify(tenantA, plain.body, [], { request: withoutNonce });
        expect(plainChecked.out).toContain('Response verify OK');
      });

      it('answers the openssl client itself, at the OCSP URL in the certificate (AIA)', async () => {
        const leaf = parseCertificate(pemToDer(goodA.certificatePem));
        expect(leaf.ocspUrls).toEqual([ocspUrl(tenantA.tenantId)]);
        const leafPath = file('good-a.pem');
        writeFileSync(leafPath, goodA.certificatePem);
        // Asynchronously: the responder runs in this process and must keep serving meanwhile.
        const { stdout, stderr } = await promisify(execFile)('openssl', [
          'ocsp',
          '-issuer',
          tenantA.pemPath,
          '-cert',
          leafPath,
          '-url',
          leaf.ocspUrls[0],
          '-CAfile',
          tenantA.pemPath,
          '-timeout',
          '10',
        ]);
        expect(`${stdout}${stderr}`).toContain('Response verify OK');
        expect(stdout).toContain(`${leafPath}: good`);
      });
    });

    describe('GET /ocsp/{request}', () => {
      /** A request without nonce whose standard base64 contains "/" (and so differs from base64url). */
      function requestWithSlash(): Buffer {
        for (let i = 0; i < 40; i++) {
          const serials = [goodA.serialNumber];
          if (i > 0) serials.push(`7${randomBytes(15).toString('hex').toUpperCase()}`);
          const request = ocspRequest(tenantA, serials, { nonce: false, sha256: i % 2 === 1 });
          if (request.toString('base64').includes('/')) return request;
        }
        throw new Error('no OCSP request with a "/" in its base64 found');
      }

      it('decodes base64url, percent-encoded standard base64 and raw "/" alike, and makes the answer cacheable', async () => {
        const request = requestWithSlash();
        const standard = request.toString('base64');
        const forms = {
          base64url: request.toString('base64url'),
          percentEncoded: encodeURIComponent(standard),
          rawSlash: standard,
        };
        expect(forms.percentEncoded).toMatch(/%2F/);
        expect(forms.rawSlash).toContain('/');
        const answers: HttpAnswer[] = [];
        for (const [form, path] of Object.entries(forms)) {
          const sentAt = Date.now();
          const answer = await http(`${ocspUrl(tenantA.tenantId)}/${path}`);
          const info = basic(answer);
          const verified = opensslVerify(tenantA, answer.body, [goodA.serialNumber], {
            sha256: parseOcspRequest(new Uint8Array(request)).certIds[0].hashAlgorithm === 'sha256',
          });
          expect({ form, verified: verified.out.includes('Response verify OK') }).toEqual({
            form,
            verified: true,
          });
          expect(verified.out).toMatch(new RegExp(`0x${goodA.serialNumber}: good`));

          // RFC 5019 6.2: cacheable up to nextUpdate, with validators.
          expectCacheable(answer, info, sentAt);
          answers.push(answer);
        }
        // One request, one (reused) signed answer, whatever the encoding of the URL.
        expect(answers[1].body).toEqual(answers[0].body);
        expect(answers[2].body).toEqual(answers[0].body);
        expect(answers[1].headers.get('etag')).toBe(answers[0].headers.get('etag'));

        const url = `${ocspUrl(tenantA.tenantId)}/${forms.base64url}`;
        const etag = answers[0].headers.get('etag')!;
        const notModified = await http(url, { headers: { 'if-none-match': etag } });
        expect(notModified.status).toBe(304);
        expect(notModified.body.length).toBe(0);
        expect(notModified.headers.get('etag')).toBe(etag);
        expect((await http(url, { headers: { 'if-none-match': `"other", ${etag}` } })).status).toBe(304);
        const sinceLastModified = await http(url, {
          headers: { 'if-modified-since': answers[0].headers.get('last-modified')! },
        });
        expect(sinceLastModified.status).toBe(304);
        expect((await http(url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
      });

      it('accepts runs of "//" left raw in standard base64', async () => {
        // A nonce of 0xFF octets puts "////" into the standard base64 of the request.
        const request = ocspRequest(tenantA, [goodA.serialNumber], { nonce: true });
        const nonce = Buffer.from(parseOcspRequest(new Uint8Array(request)).nonce!);
        expect(nonce.subarray(0, 2)).toEqual(Buffer.from([0x04, 0x10]));
        const at = request.indexOf(nonce);
        const crafted = Buffer.from(request);
        crafted.fill(0xff, at + 2, at + nonce.length);
        const standard = crafted.toString('base64');
        expect(standard).toContain('////');
        const answer = await http(`${ocspUrl(tenantA.tenantId)}/${standard}`);
        const info = basic(answer);
        expect(Buffer.from(info.nonce!)).toEqual(Buffer.from([0x04, 0x10, ...Array(16).fill(0xff)]));
        expect(info.responses[0].status.kind).toBe('good');
        expect(opensslVerify(tenantA, answer.body, [], { request: crafted }).out).toContain(
          'Response verify OK',
        );
      });

      it('answers a nonce in a GET request too', async () => {
        const request = ocspRequest(tenantA, [otherGoodA.serialNumber], { nonce: true });
        const answer = await http(`${ocspUrl(tenantA.tenantId)}/${request.toString('base64url')}`);
        const info = basic(answer);
        expect(Buffer.from(info.nonce!)).toEqual(
          Buffer.from(parseOcspRequest(new Uint8Array(request)).nonce!),
        );
        expect(info.responses[0].status.kind).toBe('good');
      });

      it('answers revoked for the same URL within 5 s of a revocation, never the stale good answer again', async () => {
        const certificate = await issue(tenantA, 'revoked while cached');
        const request = ocspRequest(tenantA, [certificate.serialNumber], { nonce: false });
        const url = `${ocspUrl(tenantA.tenantId)}/${request.toString('base64url')}`;
        const good = await eventually(async () => {
          const answer = await http(url);
          return basic(answer).responses[0].status.kind === 'good' ? answer : undefined;
        }, 'certificate.issued known to the responder');
        // Served from the response cache now.
        expect((await http(url)).body).toEqual(good.body);
        const goodEtag = good.headers.get('etag')!;

        const startedAt = Date.now();
        const { revokedAt: when } = await revoke(tenantA, certificate.certificateId, 'Superseded');
        const revoked = await eventually(async () => {
          const answer = await http(url);
          return basic(answer).responses[0].status.kind === 'revoked' ? answer : undefined;
        }, 'revoked answer for the cached URL');
        const latency = Date.now() - startedAt;
        console.log(`[${databaseKind}/${transport}] revocation → OCSP GET answer: ${latency} ms`);
        expect(latency).toBeLessThan(PROPAGATION_MS);
        expect(basic(revoked).responses[0].status).toEqual({
          kind: 'revoked',
          revocationTime: new Date(when),
          reasonCode: RevocationReasonCodes.Superseded,
        });
        expect(revoked.headers.get('etag')).not.toBe(goodEtag);
        for (let i = 0; i < 5; i++) {
          expect(basic(await http(url)).responses[0].status.kind).toBe('revoked');
          expect(basic(await post(tenantA.tenantId, request)).responses[0].status.kind).toBe('revoked');
        }
        // A client holding the good answer revalidates and gets the new one, not a 304.
        const revalidated = await http(url, { headers: { 'if-none-match': goodEtag } });
        expect(revalidated.status).toBe(200);
        expect(basic(revalidated).responses[0].status.kind).toBe('revoked');
      });
    });

    describe('error answers: HTTP 200, application/ocsp-response', () => {
      it('says unauthorized for an unknown tenant and a tenant without CA', async () => {
        const request = ocspRequest(tenantA, [goodA.serialNumber], { nonce: false });
        // A tenant that tried and failed to initialize a CA has none.
        const withoutCa = randomUUID();
        await expect(
          issuance.send(IssuancePattern.InitializeCa, {
            tenantId: withoutCa,
            principal: 'ocsp-test',
            request: { commonName: '', organization: 'Acme', country: 'us', validityYears: 0 },
          }),
        ).rejects.toMatchObject({ code: ErrorCode.ValidationFailed });
        for (const tenant of [randomUUID(), withoutCa, 'not-a-tenant']) {
          expect(statusOf(await post(tenant, request))).toBe('unauthorized');
          const get = await http(`${ocspUrl(tenant)}/${request.toString('base64url')}`);
          expect(statusOf(get)).toBe('unauthorized');
          expect(get.headers.get('cache-control')).toBe('no-store');
        }
      });

      it('says malformedRequest for garbage, an empty body and an undecodable GET path', async () => {
        for (const body of [randomBytes(40), Buffer.alloc(0), Buffer.from('30030201', 'hex'), 'hello']) {
          const answer = await post(tenantA.tenantId, body);
          expect(statusOf(answer)).toBe('malformedRequest');
          expect(answer.headers.get('cache-control')).toBe('no-store');
        }
        // No body and no content type at all.
        expect(statusOf(await http(ocspUrl(tenantA.tenantId), { method: 'POST' }))).toBe('malformedRequest');
        for (const path of ['!!!!', 'A', 'abc$def', '%25%25', randomBytes(30).toString('base64url')]) {
          const answer = await http(`${ocspUrl(tenantA.tenantId)}/${path}`);
          expect({ path, status: statusOf(answer) }).toEqual({ path, status: 'malformedRequest' });
          expect(answer.headers.get('cache-control')).toBe('no-store');
        }
        // Also for a tenant that does not exist: the request is read first.
        expect(statusOf(await post(randomUUID(), randomBytes(10)))).toBe('malformedRequest');
      });
    });

    it('signs with a delegated certificate: EKU OCSPSigning, id-pkix-ocsp-nocheck, issued by the tenant CA', async () => {
      const answer = await post(
        tenantA.tenantId,
        ocspRequest(tenantA, [goodA.serialNumber], { nonce: false }),
      );
      const info = basic(answer);
      expect(info.certificates).toHaveLength(1);
      const signerDer = info.certificates[0];
      const signer = parseCertificate(signerDer);
      const ca = parseCertificate(new Uint8Array(tenantA.der));
      expect(signer.extendedKeyUsages).toEqual(['ocspSigning']);
      expect(signer.extensionOids).toContain(OCSP_NOCHECK_OID);
      expect(signer.isCa).toBe(false);
      expect(signer.issuer).toEqual(ca.subject);
      expect(signer.authorityKeyIdentifierHex).toBe(ca.subjectKeyIdentifierHex);
      // Backdated like every certificate, never before its CA, exactly 30 days (RFC 5280 4.1.2.5).
      expect(signer.notBefore.getTime()).toBeGreaterThanOrEqual(ca.notBefore.getTime());
      expect(signer.notAfter.getTime() - signer.notBefore.getTime()).toBe(30 * 86_400_000 - 1000);
      expect(
        new X509Certificate(Buffer.from(signerDer)).verify(new X509Certificate(tenantA.der).publicKey),
      ).toBe(true);
      // Never the CA key itself.
      expect(Buffer.from(signerDer)).not.toEqual(tenantA.der);

      const signerPath = file('signer-a.pem');
      writeFileSync(signerPath, derToPem(signerDer));
      const text = runOpenssl(['x509', '-in', signerPath, '-noout', '-text']);
      expect(text).toMatch(/X509v3 Extended Key Usage:.*\n\s*OCSP Signing/);
      expect(text).toMatch(/OCSP No Check/);
      expect(
        runOpenssl(['verify', '-CAfile', tenantA.pemPath, '-purpose', 'ocsphelper', signerPath]),
      ).toContain(`${signerPath}: OK`);

      // Each tenant has its own signer; A's answers do not verify against B's CA.
      const answerB = basic(
        await post(tenantB.tenantId, ocspRequest(tenantB, [goodB.serialNumber], { nonce: false })),
      );
      expect(Buffer.from(answerB.certificates[0])).not.toEqual(Buffer.from(signerDer));
      const crossed = opensslVerify(tenantB, answer.body, [], {});
      expect(crossed.out).not.toContain('Response verify OK');
    });

    it("answers unauthorized for a CertID of another CA's key, even under the same issuer name, or mixed with ours", async () => {
      // Same subject DN as tenant A's CA, another key: issuerNameHash matches, issuerKeyHash does not.
      const lookalike = await createTestPki('OCSP Test Root A');
      expect(Buffer.from(parseCertificate(lookalike.caDer).subjectDer)).toEqual(
        Buffer.from(parseCertificate(new Uint8Array(tenantA.der)).subjectDer),
      );
      const lookalikePath = file('lookalike.pem');
      writeFileSync(lookalikePath, derToPem(lookalike.caDer));
      for (const sha256 of [false, true]) {
        const request = ocspRequest(tenantA, [goodA.serialNumber], {
          nonce: false,
          sha256,
          issuerPath: lookalikePath,
        });
        expect(statusOf(await post(tenantA.tenantId, request))).toBe('unauthorized');
      }
      // A hash algorithm the responder does not match CertIDs with (RFC 5019 2.1.1: SHA-1).
      const sha384 = file(`req-${randomUUID()}.der`);
      runOpenssl([
        'ocsp',
        '-sha384',
        '-issuer',
        tenantA.pemPath,
        '-serial',
        `0x${goodA.serialNumber}`,
        '-no_nonce',
        '-reqout',
        sha384,
      ]);
      expect(statusOf(await post(tenantA.tenantId, readFileSync(sha384)))).toBe('unauthorized');
      // Tenant B's CertID for a serial of A, asked of A; and A's CertID asked of B.
      const ofB = ocspRequest(tenantB, [goodA.serialNumber], { nonce: false, issuerPath: tenantB.pemPath });
      expect(statusOf(await post(tenantA.tenantId, ofB))).toBe('unauthorized');
      const ofA = ocspRequest(tenantA, [goodA.serialNumber], { nonce: false });
      const fromB = await post(tenantB.tenantId, ofA);
      expect(statusOf(fromB)).toBe('unauthorized');
      expect(fromB.headers.get('cache-control')).toBe('no-store');
      // One CertID of B among A's own makes the whole request unauthorized, POST and GET alike.
      const ours = buildCertId({
        issuerCertificateDer: tenantA.der,
        serialNumberHex: goodA.serialNumber,
        hashAlgorithm: 'sha1',
      }).der;
      const theirs = buildCertId({
        issuerCertificateDer: tenantB.der,
        serialNumberHex: goodB.serialNumber,
        hashAlgorithm: 'sha1',
      }).der;
      const mixed = craftedRequest([ours, theirs, ours]);
      expect(statusOf(await post(tenantA.tenantId, mixed))).toBe('unauthorized');
      const mixedGet = await http(`${ocspUrl(tenantA.tenantId)}/${mixed.toString('base64url')}`);
      expect(statusOf(mixedGet)).toBe('unauthorized');
      expect(basic(await post(tenantA.tenantId, craftedRequest([ours, ours]))).responses).toHaveLength(2);
      // And B's own certificate, under B's CertID, is good at B.
      const own = ocspRequest(tenantB, [goodB.serialNumber], { nonce: false });
      expect(basic(await post(tenantB.tenantId, own)).responses[0].status.kind).toBe('good');
    });

    it('says malformedRequest for a nonce of 0 or over 128 octets (RFC 9654 2.1), answers 1, 32 and 128', async () => {
      const certId = buildCertId({
        issuerCertificateDer: tenantA.der,
        serialNumberHex: goodA.serialNumber,
        hashAlgorithm: 'sha1',
      }).der;
      for (const length of [0, 129, 200]) {
        const request = craftedRequest([certId], der(0x04, randomBytes(length)));
        expect({ length, status: statusOf(await post(tenantA.tenantId, request)) }).toEqual({
          length,
          status: 'malformedRequest',
        });
      }
      for (const length of [1, 32, 128]) {
        const nonce = der(0x04, randomBytes(length));
        const answer = await post(tenantA.tenantId, craftedRequest([certId], nonce));
        expect(Buffer.from(basic(answer).nonce!)).toEqual(nonce);
        expect(answer.headers.get('cache-control')).toBe('no-store');
      }
    });

    it('says malformedRequest for more than OCSP_MAX_CERTIDS (64) CertIDs, and answers 64', async () => {
      const certId = buildCertId({
        issuerCertificateDer: tenantA.der,
        serialNumberHex: goodA.serialNumber,
        hashAlgorithm: 'sha1',
      }).der;
      const tooMany = craftedRequest(Array.from({ length: 65 }, () => certId));
      expect(statusOf(await post(tenantA.tenantId, tooMany))).toBe('malformedRequest');
      const enough = craftedRequest(Array.from({ length: 64 }, () => certId));
      expect(basic(await post(tenantA.tenantId, enough)).responses).toHaveLength(64);
    });

    it('never gives an answer that is both unknown and cacheable: issue, then at once GET and POST, 200 times', async () => {
      let unknownSeen = 0;
      for (let i = 0; i < 200; i++) {
        const certificate = await issue(tenantA, `fresh ${i}`);
        const request = craftedRequest([
          buildCertId({
            issuerCertificateDer: tenantA.der,
            serialNumberHex: certificate.serialNumber,
            hashAlgorithm: 'sha1',
          }).der,
        ]);
        const answers = await Promise.all([
          http(`${ocspUrl(tenantA.tenantId)}/${request.toString('base64url')}`),
          post(tenantA.tenantId, request),
        ]);
        for (const answer of answers) {
          const sentAt = Date.now() - 5_000;
          const info = basic(answer);
          if (info.responses[0].status.kind === 'unknown') {
            unknownSeen++;
            expectNeverCached(answer);
            expect(info.responses[0].nextUpdate).toBeUndefined();
          } else {
            expect(info.responses[0].status.kind).toBe('good');
            expectCacheable(answer, info, sentAt);
          }
        }
      }
      console.log(
        `[${databaseKind}/${transport}] unknown answers right after issuance: ${unknownSeen} of 400`,
      );
    });

    it('answers 405 with Allow to other methods on the OCSP paths', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const onPost = await http(ocspUrl(tenantA.tenantId), { method, body: 'x' });
        expect({ method, status: onPost.status, allow: onPost.headers.get('allow') }).toEqual({
          method,
          status: 405,
          allow: 'POST',
        });
        const onGet = await http(`${ocspUrl(tenantA.tenantId)}/MAo=`, { method });
        expect({ method, status: onGet.status, allow: onGet.headers.get('allow') }).toEqual({
          method,
          status: 405,
          allow: 'GET, HEAD',
        });
      }
    });

    describe('CRL endpoint', () => {
      it('answers HEAD with headers only and conditional GETs with 304', async () => {
        const url = crlUrl(tenantA.tenantId);
        const full = await eventually(async () => {
          const answer = await http(url);
          return answer.status === 200 &&
            parseCrl(new Uint8Array(answer.body)).entries.some(
              (e) => e.serialNumberHex === revokedA.serialNumber,
            )
            ? answer
            : undefined;
        }, 'CRL of tenant A listing the revoked certificate');
        expect(full.headers.get('content-type')).toMatch(/^application\/pkix-crl(;|$)/);
        const etag = full.headers.get('etag')!;
        expect(etag).toMatch(/^"[^"]+"$/);
        const crl = parseCrl(new Uint8Array(full.body));
        expect(Date.parse(full.headers.get('last-modified')!)).toBe(crl.thisUpdate.getTime());
        const maxAge = Number(/max-age=(\d+)/.exec(full.headers.get('cache-control')!)![1]);
        expect(full.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
        expect(maxAge).toBeLessThanOrEqual(Math.ceil((crl.nextUpdate.getTime() - Date.now()) / 1000) + 1);

        const head = await http(url, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        expect(head.headers.get('etag')).toBe(etag);
        expect(head.headers.get('last-modified')).toBe(full.headers.get('last-modified'));
        expect(head.headers.get('content-type')).toBe(full.headers.get('content-type'));

        const notModified = await http(url, { headers: { 'if-none-match': etag } });
        expect(notModified.status).toBe(304);
        expect(notModified.body.length).toBe(0);
        expect((await http(url, { headers: { 'if-none-match': `W/${etag}` } })).status).toBe(304);
        expect(
          (await http(url, { headers: { 'if-modified-since': full.headers.get('last-modified')! } })).status,
        ).toBe(304);
        expect((await http(url, { method: 'HEAD', headers: { 'if-none-match': etag } })).status).toBe(304);
        expect((await http(url, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
        // The tenant id is not case-sensitive.
        expect((await http(crlUrl(tenantA.tenantId.toUpperCase()))).body).toEqual(full.body);
      });

      it('answers 404, not cacheable, for an unknown tenant', async () => {
        for (const tenant of [randomUUID(), 'not-a-tenant']) {
          for (const method of ['GET', 'HEAD']) {
            const answer = await http(crlUrl(tenant), { method });
            expect(answer.status).toBe(404);
            expect(answer.headers.get('cache-control')).toBe('no-store');
            if (method === 'GET')
              expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          }
        }
      });
    });

    it('keeps answering correctly while issuance is down, and catches up after its own restart', async () => {
      const good = await issue(tenantA, 'independent good');
      const gone = await issue(tenantA, 'independent revoked');
      await revoke(tenantA, gone.certificateId, 'CessationOfOperation');
      const goodRequest = ocspRequest(tenantA, [good.serialNumber], { nonce: false });
      const goneRequest = ocspRequest(tenantA, [gone.serialNumber], { nonce: false });
      await eventually(async () => {
        const answer = basic(await post(tenantA.tenantId, goneRequest));
        return answer.responses[0].status.kind === 'revoked' ? answer : undefined;
      }, 'revocation known to the responder');
      const listed = (der: Buffer, serial: string) =>
        parseCrl(new Uint8Array(der)).entries.some((e) => e.serialNumberHex === serial);
      await eventually(async () => {
        const answer = await http(crlUrl(tenantA.tenantId));
        return answer.status === 200 && listed(answer.body, gone.serialNumber) ? answer : undefined;
      }, 'revocation in the served CRL');

      /** Everything the public surface serves for tenant A, checked against what it must say. */
      const checkSurface = async (expected: { good: 'good' | 'revoked'; crlLists: string[] }) => {
        // Fresh signatures (nonce) and cached answers (GET) alike.
        for (const [serial, kind] of [
          [good.serialNumber, expected.good],
          [gone.serialNumber, 'revoked'],
        ] as const) {
          const nonced = ocspRequest(tenantA, [serial], { nonce: true });
          const answer = await post(tenantA.tenantId, nonced);
          expect(basic(answer).responses[0].status.kind).toBe(kind);
          const verified = opensslVerify(tenantA, answer.body, [serial]);
          expect(verified.out).toContain('Response verify OK');
          expect(verified.out).toMatch(new RegExp(`0x${serial}: ${kind}`));
          const get = await http(
            `${ocspUrl(tenantA.tenantId)}/${(serial === good.serialNumber ? goodRequest : goneRequest).toString('base64url')}`,
          );
          expect(basic(get).responses[0].status.kind).toBe(kind);
        }
        const crl = await http(crlUrl(tenantA.tenantId));
        expect(crl.status).toBe(200);
        for (const serial of expected.crlLists) expect(listed(crl.body, serial)).toBe(true);
        const crlPath = file(`crl-${randomUUID()}.der`);
        writeFileSync(crlPath, crl.body);
        const verify = spawnOpenssl([
          'crl',
          '-inform',
          'DER',
          '-in',
          crlPath,
          '-noout',
          '-CAfile',
          tenantA.pemPath,
          '-verify',
        ]);
        expect(`${verify.stdout}${verify.stderr}`).toMatch(/verify OK/);
        const pem = await http(`${baseUrl}/v1/tenants/${tenantA.tenantId}/ca.pem`);
        expect(pem.status).toBe(200);
        expect(Buffer.from(pemToDer(pem.body.toString('ascii')))).toEqual(tenantA.der);
        const crt = await http(`${baseUrl}/v1/tenants/${tenantA.tenantId}/ca.crt`);
        expect(crt.body).toEqual(tenantA.der);
      };

      // Issuance (and with it every signing operation of the CA) goes away.
      await stop('issuance');
      await expect(
        issuance.send(IssuancePattern.GetCertificate, {
          tenantId: tenantA.tenantId,
          certificateId: good.certificateId,
        }),
      ).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable });
      await checkSurface({ good: 'good', crlLists: [gone.serialNumber] });

      // The responder goes down; meanwhile issuance comes back, revokes, and the CRL is re-signed.
      await stop('ocsp-responder');
      await expect(fetch(ocspUrl(tenantA.tenantId), { method: 'POST' })).rejects.toThrow();
      await start('issuance');
      const { revokedAt: goodRevokedAt } = await revoke(tenantA, good.certificateId, 'AffiliationChanged');
      await eventually(async () => {
        // The revocation context's newest CRL (its own schema) lists it: crl.published is on its way.
        return (await revocationCrlLists(good.serialNumber)) ? true : undefined;
      }, 'revocation context re-signed the CRL');
      await stop('issuance');

      // The responder restarts without issuance (its signer is its own) and catches up.
      const restartedAt = Date.now();
      await start('ocsp-responder');
      const caughtUp = await eventually(async () => {
        const answer = basic(await post(tenantA.tenantId, goodRequest));
        return answer.responses[0].status.kind === 'revoked' ? answer : undefined;
      }, 'revocation made while the responder was down');
      console.log(
        `[${databaseKind}/${transport}] responder restart → revocation made while it was down answered in ${Date.now() - restartedAt} ms`,
      );
      expect(caughtUp.responses[0].status).toEqual({
        kind: 'revoked',
        revocationTime: new Date(goodRevokedAt),
        reasonCode: RevocationReasonCodes.AffiliationChanged,
      });
      await eventually(async () => {
        const answer = await http(crlUrl(tenantA.tenantId));
        return listed(answer.body, good.serialNumber) ? answer : undefined;
      }, 'CRL published while the responder was down served');
      await checkSurface({ good: 'revoked', crlLists: [gone.serialNumber, good.serialNumber] });

      await start('issuance');
    });

    /** Whether the revocation context's newest stored CRL of tenant A lists `serial`. */
    async function revocationCrlLists(serial: string): Promise<boolean> {
      const sql = new Client({ connectionString: database.url });
      await sql.connect();
      try {
        const { rows } = await sql.query<{ der: Buffer }>(
          'SELECT der FROM revocation.crls WHERE tenant_id = $1 ORDER BY crl_number DESC LIMIT 1',
          [tenantA.tenantId],
        );
        return (
          rows.length === 1 &&
          parseCrl(new Uint8Array(rows[0].der)).entries.some((e) => e.serialNumberHex === serial)
        );
      } finally {
        await sql.end();
      }
    }
  });
});
