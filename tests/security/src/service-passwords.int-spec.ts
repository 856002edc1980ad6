import { createHash, randomUUID, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSONCodec, NatsConnection } from 'nats';
import {
  CaError,
  ErrorCode,
  EventType,
  IssuanceApi,
  IssuancePattern,
  OCSP_SIGNERS_PER_HOUR,
} from '@ca/contracts';
import { Messaging, RpcClient, openMessaging, partitionOf, partitionToken } from '@ca/messaging';
import {
  RevokedCertificateEntry,
  buildCaCertificate,
  encodeTbsCertList,
  generateEcKeyPair,
  parseCrl,
  randomSerialNumber,
} from '@ca/pki';
import { buildTestCsr, withBrokenSignature } from '@ca/pki/testing';
import { waitFor } from '@ca/faults/testing';
import { LogDir } from './support/log-dir';
import { describeWithRealServices } from './support/real-services';
import { connectAs } from './support/rogue-client';
import { SecuredNatsServer, ServiceName } from './support/secured-nats-server';
import { ServiceDatabase } from './support/service-database';
import { ServiceProcesses } from './support/service-processes';
import { Tenant } from './support/tenant';

/**
 * One service's NATS password in an attacker's hands, on the shipped configuration (the four
 * services as their own processes, deploy/nats/nats-server.conf, per-service Postgres roles):
 * what each password can still make issuance sign or the responder accept (docs/security.md,
 * "What each service's password allows"). Each attempt is refused, or harmless: afterwards the
 * served CRL, OCSP and the admin API agree.
 */
jest.setTimeout(120_000);

const TESTS = 4;
describeWithRealServices('security: service passwords', ['nats-server', 'psql'])(
  "an attacker holding one service's NATS password",
  () => {
    const logs = new LogDir(TESTS);
    let nats: SecuredNatsServer;
    let database: ServiceDatabase;
    let system: ServiceProcesses;
    const rogues: Messaging[] = [];
    // Each RPC client opens a NATS connection of its own, which the messaging's close leaves open.
    const rogueClients: RpcClient<IssuanceApi>[] = [];
    let issuanceRogue: NatsConnection;

    /** A client with `service`'s credentials and inbox, as the service itself connects. */
    async function rogueAs(service: ServiceName): Promise<RpcClient<IssuanceApi>> {
      const messaging = await openMessaging({
        natsUrl: nats.url,
        name: `rogue-${service}`,
        user: service,
        pass: nats.passwords[service],
        inboxPrefix: `_INBOX.${service}`,
      });
      rogues.push(messaging);
      const client = messaging.rpcClient<IssuanceApi>();
      rogueClients.push(client);
      return client;
    }

    beforeAll(async () => {
      nats = await SecuredNatsServer.start(logs.path);
      database = await ServiceDatabase.create(process.env.DATABASE_URL!);
      system = await ServiceProcesses.start(nats, database, logs.path);
      issuanceRogue = await connectAs(nats, 'issuance');
    }, 300_000);

    afterAll(async () => {
      await issuanceRogue?.close();
      for (const client of rogueClients) await client.close();
      for (const messaging of rogues) await messaging.close();
      await system?.stop();
      await nats?.remove();
      await database?.drop();
      logs.close();
    }, 60_000);

    afterEach(() => {
      const state = expect.getState();
      if (state.assertionCalls > 0 && state.suppressedErrors.length === 0) logs.testPassed();
    });

    async function refusal(promise: Promise<unknown>): Promise<CaError> {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CaError);
      return error as CaError;
    }

    async function issue(
      tenant: Tenant,
      clientId: string,
    ): Promise<{ certificateId: string; serialNumber: string }> {
      const answer = await tenant.admin('POST', '/v1/certificates', {
        clientId,
        commonName: clientId,
        organization: 'Acme',
        organizationalUnit: 'Security',
        country: 'US',
        validityDays: 30,
      });
      expect([answer.status, answer.body]).toEqual([200, expect.any(String)]);
      return JSON.parse(answer.body) as { certificateId: string; serialNumber: string };
    }

    /** Revokes over the admin API and waits for OCSP and the served CRL to show it. */
    async function revoke(tenant: Tenant, certificate: { certificateId: string; serialNumber: string }) {
      const answer = await tenant.admin('POST', `/v1/certificates/${certificate.certificateId}/revoke`, {
        reason: 'service passwords suite',
        reasonCode: 'KeyCompromise',
      });
      expect(answer.status).toBe(200);
      await waitFor(
        async () => (await tenant.ocspStatus(certificate.serialNumber)) === 'revoked',
        30_000,
        'OCSP revoked',
      );
      await waitFor(
        async () => ((await tenant.crlSerials()) ?? []).some((s) => sameSerial(s, certificate.serialNumber)),
        30_000,
        'serial on the served CRL',
      );
    }

    async function servedCrl(tenant: Tenant) {
      const response = await fetch(`${system.pkiUrl}/v1/tenants/${tenant.tenantId}/crl`);
      expect(response.status).toBe(200);
      return parseCrl(new Uint8Array(await response.arrayBuffer()));
    }

    async function apiStatus(tenant: Tenant, certificateId: string): Promise<string> {
      const answer = await tenant.admin('GET', `/v1/certificates/${certificateId}`);
      return (JSON.parse(answer.body) as { status: string }).status;
    }

    async function tenantCas(tenant: Tenant): Promise<{ caId: string; role: string; state: string }[]> {
      const answer = await tenant.admin('GET', '/v2/ca');
      expect(answer.status).toBe(200);
      return (JSON.parse(answer.body) as { cas: { caId: string; role: string; state: string }[] }).cas;
    }

    /** An event as issuance's relay publishes it, with issuance's password. */
    async function publishAsIssuance(type: string, tenantId: string, payload: unknown): Promise<void> {
      const id = randomUUID();
      const envelope = { id, type, tenantId, occurredAt: new Date().toISOString(), payload };
      await issuanceRogue
        .jetstream()
        .publish(`ca.events.${partitionToken(partitionOf(tenantId))}.${type}`, JSONCodec().encode(envelope), {
          msgID: id,
        });
    }

    it("revocation's: no CRL leaving out a revocation, jumping numbers, valid for a week or other than the request names gets signed", async () => {
      const tenant = await Tenant.create(system);
      const revoked = await issue(tenant, 'revoked-client');
      await revoke(tenant, revoked);
      const before = await servedCrl(tenant);
      const entries: RevokedCertificateEntry[] = before.entries;
      const listed = entries.find((e) => sameSerial(e.serialNumberHex, revoked.serialNumber))!;
      const others = entries.filter((e) => e !== listed);
      const issuance = await rogueAs('revocation');
      const blobs = rogues.at(-1)!.blobs;
      const sign = async (
        crl: {
          crlNumber: bigint;
          entries: RevokedCertificateEntry[];
          thisUpdate?: Date;
          validityMs?: number;
        },
        /** The digest the request names; by default the blob's own, null: none. */
        tbsSha256?: string | null,
      ) => {
        const thisUpdate = crl.thisUpdate ?? new Date(Math.floor(Date.now() / 1000) * 1000);
        const tbs = encodeTbsCertList({
          issuerCertificateDer: tenant.caDer,
          crlNumber: crl.crlNumber,
          thisUpdate,
          nextUpdate: new Date(thisUpdate.getTime() + (crl.validityMs ?? 86_400_000)),
          entries: crl.entries,
        });
        const tbsBlobRef = await blobs.put(tbs);
        const digest =
          tbsSha256 === undefined
            ? { tbsSha256: createHash('sha256').update(tbs).digest('hex') }
            : tbsSha256 === null
              ? {}
              : { tbsSha256 };
        return issuance.send(IssuancePattern.SignCrl, {
          tenantId: tenant.tenantId,
          tbsBlobRef,
          ...digest,
        } as never);
      };
      const next = before.crlNumber + 1n;
      // The reproduction: the revocation left out, +1000, valid 7 days.
      for (const attempt of [
        { crlNumber: before.crlNumber + 1000n, entries: others, validityMs: 7 * 86_400_000 },
        { crlNumber: next, entries: others },
        // Dated before the revocation, so "as of thisUpdate" it was not revoked: a CRL already listed it.
        { crlNumber: next, entries: others, thisUpdate: new Date(listed.revocationDate.getTime() - 1000) },
        { crlNumber: next, entries, validityMs: 7 * 86_400_000 },
        { crlNumber: next + 1n, entries },
      ]) {
        expect((await refusal(sign(attempt))).code).toBe(ErrorCode.Forbidden);
      }
      // Bound by digest: a request names the bytes it wants signed, and a blob holding anything
      // else (replaced in the store after the request) is refused, even one the ledger would pass
      // (this one lists every revocation under the next number); without a digest, nothing is signed.
      const otherBytes = createHash('sha256').update('another TBSCertList').digest('hex');
      expect((await refusal(sign({ crlNumber: next, entries }, otherBytes))).code).toBe(ErrorCode.Forbidden);
      expect((await refusal(sign({ crlNumber: next, entries }, null))).code).toBe(ErrorCode.ValidationFailed);
      // Harmless afterwards: the served CRL still lists it, OCSP and the API agree, and the next
      // real revocation is served under the next number.
      expect((await servedCrl(tenant)).crlNumber).toBe(before.crlNumber);
      expect(await tenant.ocspStatus(revoked.serialNumber)).toBe('revoked');
      expect(await apiStatus(tenant, revoked.certificateId)).toBe('Revoked');
      const later = await issue(tenant, 'later-client');
      await revoke(tenant, later);
      const after = await servedCrl(tenant);
      expect(after.crlNumber).toBe(next);
      expect(after.entries.some((e) => sameSerial(e.serialNumberHex, revoked.serialNumber))).toBe(true);
    });

    it("the responder's: a signer only for a key the request proves, at most a few an hour, and announced", async () => {
      const tenant = await Tenant.create(system);
      const issuance = await rogueAs('ocsp-responder');
      const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
      const csr = await buildTestCsr(keys, 'rogue signer');
      const ask = (request: Record<string, unknown>) =>
        issuance.send(IssuancePattern.IssueOcspSigner, { tenantId: tenant.tenantId, ...request } as never);
      // The reproduction: a bare public key (the responder's, say), then a request it did not sign.
      expect((await refusal(ask({ publicKeySpki: spki.toString('base64') }))).code).toBe(
        ErrorCode.ValidationFailed,
      );
      expect(
        (
          await refusal(
            ask({ certificationRequest: Buffer.from(withBrokenSignature(csr)).toString('base64') }),
          )
        ).code,
      ).toBe(ErrorCode.CsrSignatureInvalid);
      // Its own key: certified, but announced, and the responder reports a signer it never asked for.
      await ask({ certificationRequest: Buffer.from(csr).toString('base64') });
      const sha256 = createHash('sha256').update(spki).digest('hex');
      await waitFor(
        async () => readFileSync(join(logs.path, 'ocsp-responder.log'), 'utf8').includes(sha256),
        30_000,
        'the responder reporting the signer it did not ask for',
      );
      // Bounded: within the hour the next ones are refused (the responder's own took one or two).
      let refused: CaError | undefined;
      for (let i = 0; i < OCSP_SIGNERS_PER_HOUR && !refused; i++) {
        const request = await buildTestCsr(keys, `rogue signer ${i}`);
        refused = await ask({ certificationRequest: Buffer.from(request).toString('base64') }).then(
          () => undefined,
          (e: CaError) => e,
        );
      }
      expect(refused?.code).toBe(ErrorCode.RateLimited);
      // The responder's own signer keeps answering.
      const certificate = await issue(tenant, 'good-client');
      await waitFor(
        async () => (await tenant.ocspStatus(certificate.serialNumber)) === 'good',
        30_000,
        'OCSP good',
      );
    });

    it("issuance's (or a development bus): a squatted ca.initialized or a foreign issuing CA is not served", async () => {
      // A ca.initialized for a tenant before its real initialization, naming the squatter's root.
      const tenantId = randomUUID();
      const squatterKeys = await generateEcKeyPair(false);
      const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      const notAfter = new Date(notBefore.getTime() + 365 * 86_400_000);
      const squatterDer = await buildCaCertificate(
        {
          subject: { commonName: 'Security Suite Root', organization: 'Acme', country: 'US' },
          notBefore,
          notAfter,
          serialNumber: randomSerialNumber(),
          pathLenConstraint: 1,
        },
        squatterKeys,
      );
      await publishAsIssuance(EventType.CaInitialized, tenantId, {
        tenantId,
        caId: randomUUID(),
        certificateDer: Buffer.from(squatterDer).toString('base64'),
        notBefore: notBefore.toISOString(),
        notAfter: notAfter.toISOString(),
      });
      const tenant = await Tenant.create(system, tenantId);
      await waitFor(
        async () => {
          const served = await fetch(`${system.pkiUrl}/v1/tenants/${tenantId}/ca.crt`);
          return (
            served.status === 200 && Buffer.from(await served.arrayBuffer()).equals(Buffer.from(tenant.caDer))
          );
        },
        30_000,
        'the real root served as ca.crt',
      );
      // Its CRL and OCSP work: the responder checks them against the real root.
      const certificate = await issue(tenant, 'after-squat');
      await revoke(tenant, certificate);

      // An issuing CA under this tenant's name, signed by the squatter's key: not served.
      const issuingKeys = await generateEcKeyPair(false);
      const caId = randomUUID();
      const forged = await buildCaCertificate(
        {
          subject: { commonName: 'Forged Issuing CA', organization: 'Acme', country: 'US' },
          notBefore,
          notAfter,
          serialNumber: randomSerialNumber(),
          pathLenConstraint: 0,
        },
        issuingKeys,
        { certificateDer: squatterDer, privateKey: squatterKeys.privateKey },
      );
      const rootId = (await tenantCas(tenant)).find((ca) => ca.role === 'root')!.caId;
      // Refused by the bus itself while issuance's user may not publish this type; by the responder else.
      const published = await publishAsIssuance(EventType.IssuingCaAdded, tenantId, {
        tenantId,
        caId,
        certificateDer: Buffer.from(forged).toString('base64'),
        notBefore: notBefore.toISOString(),
        notAfter: notAfter.toISOString(),
        issuerCaId: rootId,
        rootCertificateDer: Buffer.from(squatterDer).toString('base64'),
        previousCaId: rootId,
      }).then(
        () => true,
        (error: { code?: string }) => {
          expect(error.code).toBe('PERMISSIONS_VIOLATION');
          return false;
        },
      );
      // Events of a tenant are applied in order: once a later revocation shows, the forged one was handled.
      if (published) await revoke(tenant, await issue(tenant, 'marker'));
      expect((await fetch(`${system.pkiUrl}/v1/tenants/${tenantId}/ca/${caId}.crt`)).status).toBe(404);
    });

    it("issuance's: a forged certificate.revoked costs one refused CRL; the CRL then follows issuance's ledger", async () => {
      const tenant = await Tenant.create(system);
      const good = await issue(tenant, 'forged-revocation-target');
      await revoke(tenant, await issue(tenant, 'first-revoked'));
      const before = await servedCrl(tenant);
      // The CA that signs the tenant's leaves: its issuing CA, else its root.
      const cas = await tenantCas(tenant);
      const leafCa = cas.find((ca) => ca.role === 'issuing' && ca.state === 'active') ?? cas[0];
      await publishAsIssuance(EventType.CertificateRevoked, tenant.tenantId, {
        tenantId: tenant.tenantId,
        certificateId: good.certificateId,
        caId: leafCa.caId,
        serialNumber: good.serialNumber,
        revokedAt: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString(),
        reasonCode: 1,
      });
      // The next real revocation reaches the CRL (nothing frozen), and the forged one is not on it.
      const later = await issue(tenant, 'later-revoked');
      await revoke(tenant, later);
      const after = await servedCrl(tenant);
      expect(after.crlNumber).toBeGreaterThan(before.crlNumber);
      expect(after.entries.some((e) => sameSerial(e.serialNumberHex, good.serialNumber))).toBe(false);
      expect(await apiStatus(tenant, good.certificateId)).toBe('Active');
    });
  },
);

function sameSerial(a: string, b: string): boolean {
  return a.toLowerCase().replace(/^0+/, '') === b.toLowerCase().replace(/^0+/, '');
}
