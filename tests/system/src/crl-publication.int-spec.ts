import 'reflect-metadata';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  CaError,
  CertificateRevokedPayload,
  CrlPublishedPayload,
  ErrorCode,
  EventEnvelope,
  EventType,
  IssuanceApi,
  IssuancePattern,
  IssuedCertificate,
  RevocationReasonCode,
  RevocationReasonCodes,
} from '@ca/contracts';
import { Messaging, RpcClient } from '@ca/messaging';
import { transportKinds } from '@ca/messaging/testing';
import { TestDatabase, databaseKinds } from '@ca/persistence/testing';
import {
  CrlInfo,
  assembleCertificateList,
  encodeTbsCertList,
  parseCertificate,
  parseCrl,
  pemToDer,
  signTbs,
} from '@ca/pki';
import { createTestPki, describeIfOpenssl, runOpenssl, spawnOpenssl } from '@ca/pki/testing';
import { HttpAnswer, http } from './support/http';
import { eventually as poll } from '@ca/messaging/testing';
import { ServiceCluster, ServiceName } from './support/service-cluster';
import { freshSubjectPublicKey } from './support/subject-key';
import { ocspStatus } from './support/pki';

/**
 * CRL publication end to end (docs/ocsp.md): issuance (CA key, SignCrl), the
 * revocation context (ledger, CRL numbers, publisher) and the OCSP responder (which serves the
 * CRL at GET /v1/tenants/{tenantId}/crl), driven over RPC as the gateway would, without it.
 * Runs on every database kind and transport the machine offers.
 */
jest.setTimeout(60_000);

/** A revocation reaches the served CRL within this (docs/ocsp.md). */
const PROPAGATION_MS = 5_000;

const combinations = databaseKinds().flatMap((database) =>
  transportKinds().map((transport) => [database, transport] as const),
);
if (!process.env.DATABASE_URL || !process.env.NATS_URL)
  console.warn('CRL publication suite: DATABASE_URL/NATS_URL not set, only embedded + in-process run');

interface TenantCa {
  tenantId: string;
  caId: string;
  der: Buffer;
  pemPath: string;
  /** Subject Key Identifier, uppercase hex without separators. */
  ski: string;
}

interface ServedCrl {
  answer: HttpAnswer;
  info: CrlInfo;
}

/** Polls every 50 ms until the propagation time is up. */
const eventually = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = PROPAGATION_MS) =>
  poll(probe, what, timeoutMs, 50);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The CaError an RPC failed with (RpcClient rejects with CaError only). */
async function rpcError(call: Promise<unknown>): Promise<CaError> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(CaError);
  return outcome as CaError;
}

/** "AB:CD:…" as openssl prints key identifiers, from uppercase hex. */
const colonHex = (hex: string) => hex.match(/../g)!.join(':');

describeIfOpenssl('CRL publication', () => {
  describe.each(combinations)('(%s database, %s transport)', (databaseKind, transport) => {
    let cluster: ServiceCluster;
    let database: TestDatabase;
    /** The test's own connection (the gateway's place): RPC to issuance, raw events, blobs. */
    let client: Messaging;
    let issuance: RpcClient<IssuanceApi>;
    let sql: Client;
    let baseUrl: string;
    let workDir: string;
    let tenantA: TenantCa;
    let tenantB: TenantCa;

    const crlUrl = (tenantId: string) => `${baseUrl}/v1/tenants/${tenantId}/crl`;

    const start = (name: ServiceName) => cluster.start(name);
    const stop = (name: ServiceName) => cluster.stop(name);

    async function initializeCa(commonName: string): Promise<TenantCa> {
      const tenantId = randomUUID();
      const result = await issuance.send(IssuancePattern.InitializeCa, {
        tenantId,
        principal: 'crl-test',
        request: { commonName, organization: 'Acme', country: 'US', validityYears: 5 },
      });
      const der = Buffer.from(pemToDer(result.certificatePem));
      const pemPath = join(workDir, `${tenantId}.pem`);
      writeFileSync(pemPath, result.certificatePem);
      const ski = parseCertificate(new Uint8Array(der)).subjectKeyIdentifierHex!;
      return { tenantId, caId: result.caId, der, pemPath, ski };
    }

    function issue(ca: TenantCa, commonName = 'crl client'): Promise<IssuedCertificate> {
      return issuance.send(IssuancePattern.IssueCertificate, {
        tenantId: ca.tenantId,
        principal: 'crl-test',
        subjectPublicKey: freshSubjectPublicKey(),
        request: {
          clientId: 'crl-test-client',
          commonName,
          organization: 'Acme',
          organizationalUnit: 'Revocation',
          country: 'US',
          validityDays: 30,
        },
      });
    }

    function revoke(
      ca: TenantCa,
      certificateId: string,
      reasonCode: RevocationReasonCode = 'KeyCompromise',
      reason = `free text ${randomUUID()}`,
    ) {
      return issuance.send(IssuancePattern.RevokeCertificate, {
        tenantId: ca.tenantId,
        principal: 'crl-test',
        certificateId,
        request: { reason, reasonCode },
      });
    }

    async function fetchCrl(ca: TenantCa): Promise<ServedCrl | undefined> {
      const answer = await http(crlUrl(ca.tenantId));
      if (answer.status !== 200) return undefined;
      return { answer, info: parseCrl(new Uint8Array(answer.body)) };
    }

    /** The first served CRL for which `accept` holds, within `timeoutMs`. */
    function crlWhere(
      ca: TenantCa,
      what: string,
      accept: (crl: CrlInfo) => boolean,
      timeoutMs = PROPAGATION_MS,
    ): Promise<ServedCrl> {
      return eventually(
        async () => {
          const crl = await fetchCrl(ca);
          return crl && accept(crl.info) ? crl : undefined;
        },
        what,
        timeoutMs,
      );
    }

    const lists = (crl: CrlInfo, serial: string) => crl.entries.some((e) => e.serialNumberHex === serial);

    /** `openssl crl` on the served DER: its text, and its verdict on the signature against the CA. */
    function opensslCrl(ca: TenantCa, der: Buffer): { text: string; verify: string } {
      const path = join(workDir, `crl-${randomUUID()}.der`);
      writeFileSync(path, der);
      const text = runOpenssl(['crl', '-inform', 'DER', '-in', path, '-noout', '-text']);
      const verified = spawnOpenssl([
        'crl',
        '-inform',
        'DER',
        '-in',
        path,
        '-noout',
        '-CAfile',
        ca.pemPath,
        '-verify',
      ]);
      return { text, verify: `${verified.stdout}${verified.stderr}` };
    }

    async function issuerRow(ca: TenantCa): Promise<{ nextCrlNumber: bigint; published: number }> {
      const issuers = await sql.query<{ next_crl_number: string }>(
        'SELECT next_crl_number FROM revocation.crl_issuers WHERE tenant_id = $1',
        [ca.tenantId],
      );
      const published = await sql.query<{ count: string }>(
        `SELECT count(*) FROM revocation.outbox WHERE tenant_id = $1 AND type = $2`,
        [ca.tenantId, EventType.CrlPublished],
      );
      return {
        nextCrlNumber: BigInt(issuers.rows[0].next_crl_number),
        published: Number(published.rows[0].count),
      };
    }

    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), 'crl-int-'));
      cluster = await ServiceCluster.start(databaseKind, transport);
      ({ database, client, issuance, baseUrl } = cluster);
      sql = new Client({ connectionString: database.url });
      await sql.connect();
    });

    afterAll(async () => {
      await sql?.end();
      await cluster?.close();
      rmSync(workDir, { recursive: true, force: true });
    });

    it('publishes an empty, verifiable v2 CRL as soon as a CA exists', async () => {
      const startedAt = Date.now();
      tenantA = await initializeCa('CRL Test Root A');
      const crl = await crlWhere(tenantA, 'first CRL of tenant A served', () => true);
      console.log(
        `[${databaseKind}/${transport}] CA initialized → empty CRL served in ${Date.now() - startedAt} ms`,
      );

      expect(crl.answer.headers.get('content-type')).toMatch(/^application\/pkix-crl(;|$)/);
      expect(crl.answer.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(crl.answer.headers.get('last-modified')).toBeTruthy();
      expect(crl.answer.headers.get('cache-control')).toMatch(/\bpublic\b.*\bmax-age=\d+/);
      expect(crl.info.entries).toEqual([]);
      expect(crl.info.crlNumber).toBeGreaterThanOrEqual(1n);
      expect(crl.info.authorityKeyIdentifierHex).toBe(tenantA.ski);
      expect(crl.info.issuer.commonName).toBe('CRL Test Root A');
      expect(crl.info.nextUpdate.getTime()).toBeGreaterThan(crl.info.thisUpdate.getTime());

      const { text, verify } = opensslCrl(tenantA, crl.answer.body);
      expect(text).toMatch(/Version 2 \(0x1\)/);
      expect(text).toMatch(/X509v3 CRL Number:\s*\n\s*\d+/);
      expect(text).toMatch(
        new RegExp(`X509v3 Authority Key Identifier:\\s*\\n\\s*(keyid:)?${colonHex(tenantA.ski)}`),
      );
      expect(text).toMatch(/No Revoked Certificates\./);
      expect(text).toMatch(/Signature Algorithm: ecdsa-with-SHA256/);
      expect(verify).toMatch(/verify OK/);

      // The second tenant, for the signing checks below.
      tenantB = await initializeCa('CRL Test Root B');
      await crlWhere(tenantB, 'first CRL of tenant B served', () => true);
    });

    it('lists a revoked serial with its reason within 5 s, under a higher CRL number, never the free text', async () => {
      const certificate = await issue(tenantA);
      const before = (await fetchCrl(tenantA))!;
      const freeText = `compromised laptop ${randomUUID()}`;
      const revokedAt = Date.now();
      const result = await revoke(tenantA, certificate.certificateId, 'KeyCompromise', freeText);
      const crl = await crlWhere(tenantA, 'revoked serial in the served CRL', (c) =>
        lists(c, certificate.serialNumber),
      );
      const latency = Date.now() - revokedAt;
      console.log(`[${databaseKind}/${transport}] revocation → served CRL: ${latency} ms`);
      expect(latency).toBeLessThan(PROPAGATION_MS);

      expect(crl.info.crlNumber).toBeGreaterThan(before.info.crlNumber);
      expect(crl.answer.headers.get('etag')).not.toBe(before.answer.headers.get('etag'));
      const entry = crl.info.entries.find((e) => e.serialNumberHex === certificate.serialNumber)!;
      expect(entry.reasonCode).toBe(RevocationReasonCodes.KeyCompromise);
      expect(entry.revocationDate.toISOString()).toBe(new Date(result.revokedAt).toISOString());

      const { text, verify } = opensslCrl(tenantA, crl.answer.body);
      expect(verify).toMatch(/verify OK/);
      expect(text).toMatch(
        new RegExp(
          `Serial Number: ${certificate.serialNumber}\\s*\\n\\s*Revocation Date: [^\\n]+\\n\\s*CRL entry extensions:\\s*\\n\\s*X509v3 CRL Reason Code:\\s*\\n\\s*Key Compromise`,
        ),
      );
      // The free-text reason is for the audit log only.
      expect(crl.answer.body.includes(Buffer.from(freeText))).toBe(false);
      expect(crl.answer.body.includes(Buffer.from('compromised laptop'))).toBe(false);
      expect(text).not.toContain('compromised laptop');

      // A conditional GET with the old validator gets the new CRL, with the new one a 304.
      const old = await http(crlUrl(tenantA.tenantId), {
        headers: { 'if-none-match': before.answer.headers.get('etag')! },
      });
      expect(old.status).toBe(200);
      const current = await http(crlUrl(tenantA.tenantId), {
        headers: { 'if-none-match': crl.answer.headers.get('etag')! },
      });
      // 304, unless an even newer CRL was published meanwhile.
      if (current.status !== 304)
        expect(parseCrl(new Uint8Array(current.body)).crlNumber).toBeGreaterThan(crl.info.crlNumber);
    });

    it('ends a burst of 20 revocations with one CRL listing all 20, built far fewer than 20 times', async () => {
      const certificates = await Promise.all(
        Array.from({ length: 20 }, (_, i) => issue(tenantA, `burst ${i}`)),
      );
      // Let the CRL work caused by the issuance settle (none expected), then take the baseline.
      const before = await issuerRow(tenantA);
      const startedAt = Date.now();
      const reasons: RevocationReasonCode[] = ['Superseded', 'CessationOfOperation', 'AffiliationChanged'];
      await Promise.all(
        certificates.map((c, i) => revoke(tenantA, c.certificateId, reasons[i % reasons.length])),
      );
      const crl = await crlWhere(
        tenantA,
        'CRL listing all 20 revoked serials',
        (c) => certificates.every((cert) => lists(c, cert.serialNumber)),
        10_000,
      );
      const latency = Date.now() - startedAt;
      // The publisher may still finish a build it queued; wait until the count is stable.
      await sleep(500);
      const after = await issuerRow(tenantA);
      const built = Number(after.nextCrlNumber - before.nextCrlNumber);
      console.log(
        `[${databaseKind}/${transport}] burst of 20 revocations: all listed after ${latency} ms, ${built} CRLs built (${after.published - before.published} crl.published)`,
      );
      expect(built).toBeGreaterThanOrEqual(1);
      expect(built).toBeLessThanOrEqual(10);
      expect(after.published - before.published).toBe(built);
      certificates.forEach((cert, i) => {
        const entry = crl.info.entries.find((e) => e.serialNumberHex === cert.serialNumber)!;
        expect(entry.reasonCode).toBe(RevocationReasonCodes[reasons[i % reasons.length]]);
      });
      // Each serial once (the ledger is keyed by serial).
      const serials = crl.info.entries.map((e) => e.serialNumberHex);
      expect(new Set(serials).size).toBe(serials.length);
      // The newest CRL is what is served.
      const served = (await fetchCrl(tenantA))!;
      expect(served.info.crlNumber).toBe(after.nextCrlNumber - 1n);
      expect(opensslCrl(tenantA, served.answer.body).verify).toMatch(/verify OK/);
    });

    it('applies a duplicate certificate.revoked once', async () => {
      const certificate = await issue(tenantA, 'duplicate');
      await revoke(tenantA, certificate.certificateId, 'AffiliationChanged');
      const first = await crlWhere(tenantA, 'revoked serial listed', (c) =>
        lists(c, certificate.serialNumber),
      );
      const original = first.info.entries.find((e) => e.serialNumberHex === certificate.serialNumber)!;

      const { rows } = await sql.query<{
        id: string;
        type: string;
        tenant_id: string;
        payload: CertificateRevokedPayload;
        occurred_at: Date;
      }>(
        `SELECT id, type, tenant_id, payload, occurred_at FROM issuance.outbox
          WHERE type = $1 AND payload->>'certificateId' = $2`,
        [EventType.CertificateRevoked, certificate.certificateId],
      );
      expect(rows).toHaveLength(1);
      const envelope: EventEnvelope<CertificateRevokedPayload> = {
        id: rows[0].id,
        type: rows[0].type,
        tenantId: rows[0].tenant_id,
        occurredAt: new Date(rows[0].occurred_at).toISOString(),
        payload: rows[0].payload,
      };
      // The same envelope again (a relay that crashed before marking it published) ...
      await client.events.publish(envelope);
      // ... and the same fact under a new event id, claiming another date and reason.
      await client.events.publish({
        ...envelope,
        id: randomUUID(),
        payload: {
          ...envelope.payload,
          revokedAt: new Date(Date.parse(envelope.payload.revokedAt) + 3_600_000).toISOString(),
          reasonCode: RevocationReasonCodes.Superseded,
        },
      });
      // Events are applied in order: once this revocation is listed, both duplicates were handled.
      const marker = await issue(tenantA, 'marker');
      await revoke(tenantA, marker.certificateId);
      const crl = await crlWhere(tenantA, 'marker listed', (c) => lists(c, marker.serialNumber));

      const entries = crl.info.entries.filter((e) => e.serialNumberHex === certificate.serialNumber);
      expect(entries).toHaveLength(1);
      expect(entries[0].reasonCode).toBe(RevocationReasonCodes.AffiliationChanged);
      expect(entries[0].revocationDate.toISOString()).toBe(original.revocationDate.toISOString());
      const ledger = await sql.query<{ count: string }>(
        'SELECT count(*) FROM revocation.revoked_certificates WHERE tenant_id = $1 AND serial_number = $2',
        [tenantA.tenantId, certificate.serialNumber],
      );
      expect(Number(ledger.rows[0].count)).toBe(1);
      const inbox = await sql.query<{ count: string }>(
        'SELECT count(*) FROM revocation.inbox WHERE event_id = $1',
        [envelope.id],
      );
      expect(Number(inbox.rows[0].count)).toBe(1);
    });

    it('does not freeze the CRL on a forged certificate.revoked: the next real revocation is listed, the forged one is not', async () => {
      const tenant = await initializeCa('Forged Revocation Root');
      const active = await issue(tenant, 'never revoked');
      // A revocation issuance never recorded (a forged event, or one replayed after its hold was
      // released): issuance refuses any CRL that lists it.
      await client.events.publish({
        id: randomUUID(),
        type: EventType.CertificateRevoked,
        tenantId: tenant.tenantId,
        occurredAt: new Date().toISOString(),
        payload: {
          tenantId: tenant.tenantId,
          certificateId: active.certificateId,
          caId: tenant.caId,
          serialNumber: active.serialNumber,
          revokedAt: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString(),
          reasonCode: RevocationReasonCodes.KeyCompromise,
        },
      } satisfies EventEnvelope<CertificateRevokedPayload>);
      const real = await issue(tenant, 'really revoked');
      await revoke(tenant, real.certificateId);
      const crl = await crlWhere(
        tenant,
        'the real revocation listed',
        (c) => lists(c, real.serialNumber),
        15_000,
      );
      expect(lists(crl.info, active.serialNumber)).toBe(false);
      // OCSP keeps the status issuance gave: the forged event carries no newer status sequence.
      expect((await ocspStatus(baseUrl, tenant.tenantId, tenant.der, active.serialNumber)).kind).toBe('good');
    });

    it('serves only CRLs the tenant CA signed: forged crl.published events leave the served CRL unchanged', async () => {
      const before = await crlWhere(tenantA, 'a CRL of tenant A served', () => true);
      const forger = await createTestPki('CRL Test Root A');
      const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
      const forgedDers: Buffer[] = [];
      // Naming tenant A's CA (issuer and AKI), signed by another key: the next number, and a huge one.
      for (const crlNumber of [before.info.crlNumber + 1n, 2n ** 150n]) {
        const tbs = encodeTbsCertList({
          issuerCertificateDer: new Uint8Array(tenantA.der),
          crlNumber,
          thisUpdate,
          nextUpdate: new Date(thisUpdate.getTime() + 86_400_000),
          entries: [],
        });
        const der = Buffer.from(assembleCertificateList(tbs, await signTbs(tbs, forger.caKeys.privateKey)));
        forgedDers.push(der);
        const payload: CrlPublishedPayload = {
          tenantId: tenantA.tenantId,
          crlNumber: crlNumber.toString(),
          thisUpdate: thisUpdate.toISOString(),
          nextUpdate: new Date(thisUpdate.getTime() + 86_400_000).toISOString(),
          blobRef: await client.blobs.put(der),
          sha256: createHash('sha256').update(der).digest('hex'),
        };
        await client.events.publish({
          id: randomUUID(),
          type: EventType.CrlPublished,
          tenantId: tenantA.tenantId,
          occurredAt: new Date().toISOString(),
          payload,
        });
      }
      // Events are applied in order: once this revocation is served, the forgeries were handled.
      const marker = await issue(tenantA, 'after the forgeries');
      await revoke(tenantA, marker.certificateId);
      const after = await crlWhere(tenantA, 'marker listed', (c) => lists(c, marker.serialNumber));
      for (const forged of forgedDers) expect(after.answer.body.equals(forged)).toBe(false);
      expect(after.info.crlNumber).toBeGreaterThan(before.info.crlNumber);
      expect(after.info.crlNumber).toBeLessThan(2n ** 150n);
      expect(opensslCrl(tenantA, after.answer.body).verify).toMatch(/verify OK/);
      const stored = await sql.query<{ crl_number: string }>(
        'SELECT crl_number FROM ocsp.crls WHERE tenant_id = $1',
        [tenantA.tenantId],
      );
      expect(BigInt(stored.rows[0].crl_number)).toBe(after.info.crlNumber);
    });

    it('keeps CRL numbers across a restart and catches up with a revocation made while it was down', async () => {
      const certificate = await issue(tenantA, 'while down');
      const before = (await fetchCrl(tenantA))!;
      await stop('revocation');
      await revoke(tenantA, certificate.certificateId, 'PrivilegeWithdrawn');
      // Nothing builds CRLs meanwhile: the served CRL stays as it was.
      await sleep(300);
      const during = (await fetchCrl(tenantA))!;
      expect(during.info.crlNumber).toBe(before.info.crlNumber);
      expect(lists(during.info, certificate.serialNumber)).toBe(false);

      await start('revocation');
      const crl = await crlWhere(tenantA, 'revocation made while down listed', (c) =>
        lists(c, certificate.serialNumber),
      );
      expect(crl.info.crlNumber).toBeGreaterThan(before.info.crlNumber);
      expect(crl.info.entries.find((e) => e.serialNumberHex === certificate.serialNumber)!.reasonCode).toBe(
        RevocationReasonCodes.PrivilegeWithdrawn,
      );
      expect(opensslCrl(tenantA, crl.answer.body).verify).toMatch(/verify OK/);
      // The other tenant's numbering went on too (its scheduler did not restart at 1).
      const b = (await fetchCrl(tenantB))!;
      expect(b.info.crlNumber).toBeGreaterThanOrEqual(1n);
      const { nextCrlNumber } = await issuerRow(tenantA);
      expect(nextCrlNumber).toBeGreaterThan(crl.info.crlNumber);
    });

    describe('issuance SignCrl', () => {
      async function signCrl(tenantId: string, bytes: Uint8Array) {
        const tbsBlobRef = await client.blobs.put(bytes);
        try {
          const tbsSha256 = createHash('sha256').update(bytes).digest('hex');
          return await issuance.send(IssuancePattern.SignCrl, { tenantId, tbsBlobRef, tbsSha256 });
        } finally {
          await client.blobs.delete(tbsBlobRef);
        }
      }

      const tbsOf = (issuerCertificateDer: Uint8Array) => {
        const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
        return encodeTbsCertList({
          issuerCertificateDer,
          crlNumber: 999_999n,
          thisUpdate,
          nextUpdate: new Date(thisUpdate.getTime() + 86_400_000),
          entries: [{ serialNumberHex: '0A1B2C', revocationDate: thisUpdate, reasonCode: 1 }],
        });
      };

      it("signs a TBSCertList of the tenant CA only when it matches issuance's ledger", async () => {
        // An entry issuance never revoked and a number far ahead: whoever reaches the bus sent it.
        const forged = await rpcError(signCrl(tenantA.tenantId, tbsOf(new Uint8Array(tenantA.der))));
        expect(forged.code).toBe(ErrorCode.Forbidden);
        expect(forged.message).toMatch(/not this CA's revocations/);
        // A CA of its own, so that the number taken here holds up no CRL of the other tests.
        const fresh = await initializeCa('Sign Test Root');
        const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
        const tbsNumbered = (crlNumber: bigint) =>
          encodeTbsCertList({
            issuerCertificateDer: new Uint8Array(fresh.der),
            crlNumber,
            thisUpdate,
            nextUpdate: new Date(thisUpdate.getTime() + 86_400_000),
            entries: [],
          });
        // A number that jumps ahead is refused, naming the last one this CA signed.
        const jumped = await rpcError(signCrl(fresh.tenantId, tbsNumbered(500n)));
        expect(jumped.code).toBe(ErrorCode.Forbidden);
        const last = /the last this CA signed is (\d+)/.exec(jumped.message)?.[1];
        expect(last).toBeDefined();
        const genuine = tbsNumbered(BigInt(last!) + 1n);
        const { signature } = await signCrl(fresh.tenantId, genuine);
        expect(Buffer.from(signature, 'base64').length).toBeGreaterThan(60);
        // The same number again is refused: two signers never get one number.
        expect((await rpcError(signCrl(fresh.tenantId, genuine))).code).toBe(ErrorCode.Forbidden);
      });

      it('refuses a blob that is not a TBSCertList with VALIDATION_FAILED', async () => {
        const certificate = await issue(tenantA, 'not a crl');
        const certificateDer = pemToDer(certificate.certificatePem);
        for (const bytes of [certificateDer, new Uint8Array(tenantA.der), new Uint8Array(randomBytes(64))]) {
          const error = await rpcError(signCrl(tenantA.tenantId, bytes));
          expect(error.code).toBe(ErrorCode.ValidationFailed);
          expect(error.errors?.[0]?.field).toBe('tbsBlobRef');
        }
        // A reference to nothing is refused the same way.
        const missing = await rpcError(
          issuance.send(IssuancePattern.SignCrl, {
            tenantId: tenantA.tenantId,
            tbsBlobRef: randomUUID(),
            tbsSha256: '0'.repeat(64),
          }),
        );
        expect(missing.code).toBe(ErrorCode.ValidationFailed);
      });

      it("refuses another tenant's TBSCertList with FORBIDDEN, and a tenant without CA with NOT_FOUND", async () => {
        const other = await rpcError(signCrl(tenantA.tenantId, tbsOf(new Uint8Array(tenantB.der))));
        expect(other.code).toBe(ErrorCode.Forbidden);
        // Same issuer name as tenant A's CA, another key (the AKI differs): still refused.
        const lookalike = await createTestPki('CRL Test Root A');
        expect(Buffer.from(parseCertificate(lookalike.caDer).subjectDer)).toEqual(
          Buffer.from(parseCertificate(new Uint8Array(tenantA.der)).subjectDer),
        );
        const sameName = await rpcError(signCrl(tenantA.tenantId, tbsOf(lookalike.caDer)));
        expect(sameName.code).toBe(ErrorCode.Forbidden);
        const noCa = await rpcError(signCrl(randomUUID(), tbsOf(new Uint8Array(tenantA.der))));
        expect(noCa.code).toBe(ErrorCode.NotFound);
      });
    });
  });
});
