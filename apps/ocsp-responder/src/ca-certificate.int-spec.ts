import 'reflect-metadata';
import { X509Certificate, randomBytes, randomUUID } from 'node:crypto';
import { AddressInfo, createServer } from 'node:net';
import { CaManagerConfig, loadConfig } from '@ca/config';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CaInitializedPayload,
  CaSummary,
  EventEnvelope,
  EventType,
  IssuancePattern,
  IssuingCaAddedPayload,
  RootRenewedPayload,
  TenantCommand,
} from '@ca/contracts';
import { Messaging, RpcReplyInterceptor } from '@ca/messaging';
import { TestMessaging, createTestMessaging, eventually, transportKinds } from '@ca/messaging/testing';
import { createLogger } from '@ca/observability';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import {
  buildCaCertificate,
  buildCrossCertificate,
  derToPem,
  generateEcKeyPair,
  pemToDer,
  randomSerialNumber,
} from '@ca/pki';
import { RunningService } from '@ca/runtime';
import { startOcspResponder } from './start-ocsp-responder';

/**
 * What issuance holds per tenant, as `issuance.ca.list` answers it: the responder accepts a
 * `ca.initialized` only for these certificates (docs/security.md, "CA certificates on the responder").
 */
const issuanceHolds = new Map<string, CaSummary[]>();

function vouchFor(event: EventEnvelope<CaInitializedPayload>): void {
  const { tenantId, caId, certificateDer, issuingCaId, issuingCertificateDer } = event.payload;
  const summary = (id: string, role: CaSummary['role'], der: string) =>
    ({ caId: id, role, certificatePem: derToPem(Buffer.from(der, 'base64')) }) as CaSummary;
  issuanceHolds.set(tenantId, [
    summary(caId, 'root', certificateDer),
    ...(issuingCaId && issuingCertificateDer ? [summary(issuingCaId, 'issuing', issuingCertificateDer)] : []),
  ]);
}

/** Issuance's side of `issuance.ca.list` and nothing else: this suite runs the responder alone. */
@Controller()
class FakeIssuanceController {
  @MessagePattern(IssuancePattern.ListCas)
  list(@Payload() query: TenantCommand): { cas: CaSummary[] } {
    return { cas: issuanceHolds.get(query.tenantId) ?? [] };
  }
}

@Module({ controllers: [FakeIssuanceController] })
class FakeIssuanceModule {}

/**
 * The OCSP responder alone (no gateway, no issuance): it learns CA certificates from
 * `ca.initialized` events only and serves them at /v1/tenants/{tenantId}/ca.pem and ca.crt
 * (docs/ocsp.md). Runs on every database kind and transport the machine offers.
 */
jest.setTimeout(60_000);

/** Silent by default; TEST_LOG_LEVEL=warn (say) shows the services' logs when a run needs diagnosing. */
const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';

const combinations = databaseKinds().flatMap((database) =>
  transportKinds().map((transport) => [database, transport] as const),
);
if (combinations.length === 1)
  console.warn(
    'ocsp-responder CA certificate suite: DATABASE_URL/NATS_URL not set, only embedded + in-process run',
  );

interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function http(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const response = await fetch(url, init);
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

interface PublishedCa {
  tenantId: string;
  event: EventEnvelope<CaInitializedPayload>;
  der: Buffer;
}

/** A `ca.initialized` event as issuance records it, for a real self-signed P-256 root. */
async function caInitializedEvent(tenantId: string, commonName: string): Promise<PublishedCa> {
  const keys = await generateEcKeyPair(false);
  const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + 10);
  const der = Buffer.from(
    await buildCaCertificate(
      {
        subject: { commonName, organization: 'Responder Test', country: 'DE' },
        notBefore,
        notAfter,
        serialNumber: randomSerialNumber(),
      },
      keys,
    ),
  );
  const event: EventEnvelope<CaInitializedPayload> = {
    id: randomUUID(),
    type: EventType.CaInitialized,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      caId: randomUUID(),
      certificateDer: der.toString('base64'),
      notBefore: notBefore.toISOString(),
      notAfter: notAfter.toISOString(),
    },
  };
  return { tenantId, event, der };
}

type TestRoot = {
  keys: Awaited<ReturnType<typeof generateEcKeyPair>>;
  der: Uint8Array;
  notBefore: Date;
  notAfter: Date;
};

/** A self-signed root of `subject` (pathLenConstraint 1, as a tenant root with an issuing CA). */
async function testRoot(commonName: string, notBefore: Date, notAfter: Date): Promise<TestRoot> {
  const keys = await generateEcKeyPair(false);
  const subject = { commonName, organization: 'Responder Test', country: 'DE' };
  const der = await buildCaCertificate(
    { subject, notBefore, notAfter, serialNumber: randomSerialNumber(), pathLenConstraint: 1 },
    keys,
  );
  return { keys, der, notBefore, notAfter };
}

function rootInitialized(
  tenantId: string,
  caId: string,
  root: TestRoot,
): EventEnvelope<CaInitializedPayload> {
  return {
    id: randomUUID(),
    type: EventType.CaInitialized,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      caId,
      certificateDer: Buffer.from(root.der).toString('base64'),
      notBefore: root.notBefore.toISOString(),
      notAfter: root.notAfter.toISOString(),
    },
  };
}

/** `ca.root-renewed` for `next`, with a cross certificate signed by `signer`. */
async function rootRenewed(
  tenantId: string,
  ids: { caId: string; previousRootCaId: string },
  next: TestRoot,
  signer: TestRoot,
): Promise<EventEnvelope<RootRenewedPayload>> {
  const cross = await buildCrossCertificate(
    next.der,
    { serialNumber: randomSerialNumber() },
    { certificateDer: signer.der, privateKey: signer.keys.privateKey },
  );
  return {
    id: randomUUID(),
    type: EventType.RootRenewed,
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      ...ids,
      certificateDer: Buffer.from(next.der).toString('base64'),
      notBefore: next.notBefore.toISOString(),
      notAfter: next.notAfter.toISOString(),
      keyAlgorithm: 'P-256',
      crossCertificateDer: Buffer.from(cross).toString('base64'),
    },
  };
}

describe.each(combinations)(
  'OCSP responder alone serves CA certificates (%s database, %s transport)',
  (databaseKind, transport) => {
    const logger = createLogger({ level: LOG_LEVEL, service: 'test' });
    let database: TestDatabase;
    let testMessaging: TestMessaging;
    /** The producer side (issuance in real life): a connection of its own. */
    let publisher: Messaging;
    let responderMessaging: Messaging | undefined;
    let responder: RunningService | undefined;
    let fakeIssuance: INestMicroservice | undefined;
    let config: CaManagerConfig;
    let baseUrl: string;

    /** Publishes as issuance would: the first ca.initialized of a tenant is what issuance holds. */
    function publish(event: EventEnvelope): Promise<void> {
      if (event.type === EventType.CaInitialized && !issuanceHolds.has(event.tenantId))
        vouchFor(event as EventEnvelope<CaInitializedPayload>);
      return publisher.events.publish(event);
    }

    const pemUrl = (tenantId: string) => `${baseUrl}/v1/tenants/${tenantId}/ca.pem`;
    const crtUrl = (tenantId: string) => `${baseUrl}/v1/tenants/${tenantId}/ca.crt`;

    /** Starts the responder as a restarted process would: a fresh connection, the same database and durable consumer. */
    async function startResponder(): Promise<void> {
      responderMessaging = await testMessaging.open('ocsp-responder');
      // On the responder's own messaging: in process, requests stay within one connection.
      fakeIssuance = await NestFactory.createMicroservice(FakeIssuanceModule, {
        ...responderMessaging.serverOptions('issuance'),
        logger: false,
      });
      fakeIssuance.useGlobalInterceptors(new RpcReplyInterceptor());
      await fakeIssuance.listen();
      responder = await startOcspResponder({
        config,
        databaseUrl: database.url,
        messaging: responderMessaging,
        logger,
      });
    }

    async function stopResponder(): Promise<void> {
      await responder?.close();
      responder = undefined;
      await fakeIssuance?.close();
      fakeIssuance = undefined;
      await responderMessaging?.close();
      responderMessaging = undefined;
    }

    function served(tenantId: string): Promise<HttpAnswer> {
      return eventually(async () => {
        const answer = await http(pemUrl(tenantId));
        return answer.status === 200 ? answer : undefined;
      }, `ca.pem of tenant ${tenantId} served`);
    }

    async function expectServed(ca: PublishedCa): Promise<{ pem: HttpAnswer; crt: HttpAnswer }> {
      const pem = await served(ca.tenantId);
      expect(pem.headers.get('content-type')).toMatch(/^application\/x-pem-file(;|$)/);
      expect(pem.body.toString('ascii')).toBe(derToPem(ca.der));
      expect(Buffer.from(pemToDer(pem.body.toString('ascii')))).toEqual(ca.der);
      const crt = await http(crtUrl(ca.tenantId));
      expect(crt.status).toBe(200);
      expect(crt.headers.get('content-type')).toMatch(/^application\/pkix-cert(;|$)/);
      expect(crt.body).toEqual(ca.der);
      return { pem, crt };
    }

    beforeAll(async () => {
      database = await createTestDatabase(databaseKind);
      testMessaging = createTestMessaging(transport, database.url);
      publisher = await testMessaging.open('issuance');
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      const env: Record<string, string> = {
        HOST: '127.0.0.1',
        PKI_PORT: String(port),
        PKI_PUBLIC_URL: baseUrl,
        DATA_DIR: database.dataDir,
        LOG_LEVEL,
      };
      if (databaseKind === 'postgres')
        Object.assign(env, { DATABASE_URL: database.url, CA_KEK: randomBytes(32).toString('base64') });
      if (transport === 'nats') env.NATS_URL = process.env.NATS_URL!;
      config = loadConfig(env);
      await startResponder();
    });

    afterAll(async () => {
      await stopResponder();
      await publisher?.close();
      await testMessaging?.cleanup();
      await database?.drop();
    });

    const cas: Record<'first' | 'second', PublishedCa | undefined> = { first: undefined, second: undefined };

    it('serves a published CA certificate within 5 s, as PEM and as DER, with validators', async () => {
      const publishedAt = Date.now();
      const ca = await caInitializedEvent(randomUUID(), 'Responder First Root');
      cas.first = ca;
      await publish(ca.event);
      const { pem, crt } = await expectServed(ca);
      expect(new X509Certificate(pem.body).subject).toContain('CN=Responder First Root');

      for (const answer of [pem, crt]) {
        expect(answer.headers.get('etag')).toMatch(/^"[^"]+"$/);
        expect(answer.headers.get('cache-control')).toMatch(/\bpublic\b/);
        const lastModified = Date.parse(answer.headers.get('last-modified')!);
        expect(lastModified).toBeGreaterThanOrEqual(Math.floor(publishedAt / 1000) * 1000 - 1_000);
        expect(lastModified).toBeLessThanOrEqual(Date.now());
      }
      // Two representations, two validators (RFC 9110 8.8.3).
      expect(pem.headers.get('etag')).not.toBe(crt.headers.get('etag'));
    });

    it('answers conditional requests with 304 and HEAD with headers only', async () => {
      const ca = cas.first!;
      for (const url of [pemUrl(ca.tenantId), crtUrl(ca.tenantId)]) {
        const full = await http(url);
        expect(full.status).toBe(200);
        const etag = full.headers.get('etag')!;
        const notModified = await http(url, { headers: { 'if-none-match': etag } });
        expect(notModified.status).toBe(304);
        expect(notModified.body.length).toBe(0);
        expect((await http(url, { headers: { 'if-none-match': `"other", ${etag}` } })).status).toBe(304);
        expect(
          (await http(url, { headers: { 'if-modified-since': full.headers.get('last-modified')! } })).status,
        ).toBe(304);
        expect((await http(url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
        const head = await http(url, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        expect(head.headers.get('etag')).toBe(etag);
        expect(head.headers.get('content-type')).toBe(full.headers.get('content-type'));
      }
    });

    it('accepts the tenant id in upper case and answers 404 for unknown or malformed tenants', async () => {
      const ca = cas.first!;
      const upper = await http(pemUrl(ca.tenantId.toUpperCase()));
      expect(upper.status).toBe(200);
      expect(upper.body.toString('ascii')).toBe(derToPem(ca.der));
      for (const tenant of [randomUUID(), 'not-a-uuid', `${ca.tenantId}x`]) {
        expect((await http(pemUrl(tenant))).status).toBe(404);
        expect((await http(crtUrl(tenant))).status).toBe(404);
        expect((await http(pemUrl(tenant), { method: 'HEAD' })).status).toBe(404);
      }
    });

    it('answers a ca.pem asked for before its ca.initialized arrived with the certificate, not a 404', async () => {
      const ca = await caInitializedEvent(randomUUID(), 'Responder Asked Early');
      // The request is in flight first; the event that publishes the CA comes a moment later, as
      // when a client asks right after its initialize was answered.
      const asked = http(pemUrl(ca.tenantId));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await publish(ca.event);
      const answer = await asked;
      expect(answer.status).toBe(200);
      expect(answer.body.toString('ascii')).toBe(derToPem(ca.der));
    });

    it('skips event types it does not handle and keeps consuming', async () => {
      const tenantId = randomUUID();
      await publish({
        id: randomUUID(),
        type: 'tenant.renamed',
        tenantId,
        occurredAt: new Date().toISOString(),
        payload: { tenantId, name: 'irrelevant' },
      });
      const ca = await caInitializedEvent(tenantId, 'After Unknown Event Root');
      await publish(ca.event);
      await expectServed(ca);
    });

    it('answers its health checks', async () => {
      for (const path of ['/health/live', '/health/ready'])
        expect((await http(`${baseUrl}${path}`)).status).toBe(200);
    });

    it('loses nothing while stopped: an event published meanwhile is served after the restart', async () => {
      const first = cas.first!;
      const before = await expectServed(first);
      await stopResponder();
      await expect(fetch(pemUrl(first.tenantId))).rejects.toThrow();

      const second = await caInitializedEvent(randomUUID(), 'Published While Down Root');
      cas.second = second;
      await publish(second.event);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await startResponder();

      await expectServed(second);
      const after = await expectServed(first);
      expect(after.pem.headers.get('etag')).toBe(before.pem.headers.get('etag'));
      expect(after.pem.headers.get('last-modified')).toBe(before.pem.headers.get('last-modified'));
    });

    it('applies a duplicate or conflicting ca.initialized once: the first certificate stays, ETag unchanged', async () => {
      const first = cas.first!;
      const before = await expectServed(first);

      // The same event again (a redelivery or a relay that published twice) ...
      await publish(first.event);
      // ... and a different event claiming another CA for the same tenant.
      const impostor = await caInitializedEvent(first.tenantId, 'Impostor Root');
      await publish(impostor.event);
      // Events are applied in order: once this one is served, the two above have been handled.
      const marker = await caInitializedEvent(randomUUID(), 'Marker Root');
      await publish(marker.event);
      await expectServed(marker);

      const check = async () => {
        const now = await expectServed(first);
        expect(now.pem.headers.get('etag')).toBe(before.pem.headers.get('etag'));
        expect(now.crt.headers.get('etag')).toBe(before.crt.headers.get('etag'));
        expect(now.pem.headers.get('last-modified')).toBe(before.pem.headers.get('last-modified'));
        expect(now.crt.body).not.toEqual(impostor.der);
      };
      await check();
      // Not just a cached answer: a restarted responder reads the same from its database.
      await stopResponder();
      await startResponder();
      await check();
      await expectServed(cas.second!);
    });

    it('serves a renewed root and its cross certificate only when the cross certificate verifies with the previous root', async () => {
      const tenantId = randomUUID();
      const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      const notAfter = new Date(notBefore.getTime() + 365 * 86_400_000);
      const root = () => testRoot('Responder Renewed Root', notBefore, notAfter);
      const [old, next, stranger] = [await root(), await root(), await root()];
      const oldRootId = randomUUID();
      await publish(rootInitialized(tenantId, oldRootId, old));
      await served(tenantId);
      const renewed = (signer: TestRoot, caId: string) =>
        rootRenewed(tenantId, { caId, previousRootCaId: oldRootId }, next, signer);
      // A cross certificate signed by a key that is not the tenant's root: refused, nothing served.
      const forgedId = randomUUID();
      await publish(await renewed(stranger, forgedId));
      const genuine = await renewed(old, randomUUID());
      await publish(genuine);
      const base = `${baseUrl}/v1/tenants/${tenantId}/ca`;
      const cross = await eventually(async () => {
        const answer = await http(`${base}/${genuine.payload.caId}-cross.crt`);
        return answer.status === 200 ? answer : undefined;
      }, 'cross certificate served');
      expect(cross.body).toEqual(Buffer.from(genuine.payload.crossCertificateDer, 'base64'));
      expect((await http(`${base}/${genuine.payload.caId}.crt`)).body).toEqual(Buffer.from(next.der));
      // Applied in order: the forged one came first and is not there.
      expect((await http(`${base}/${forgedId}.crt`)).status).toBe(404);
      expect((await http(`${base}/${forgedId}-cross.crt`)).status).toBe(404);
      // ca.pem stays the first root.
      expect((await http(crtUrl(tenantId))).body).toEqual(Buffer.from(old.der));
    });

    it('serves the renewed root as ca.pem and ca.crt once the first root has expired', async () => {
      const tenantId = randomUUID();
      const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      // The first root ends in a few seconds; its successor, made by renewal, in a year.
      const oldNotAfter = new Date(Math.ceil(Date.now() / 1000) * 1000 + 4_000);
      const old = await testRoot('Responder Expiring Root', notBefore, oldNotAfter);
      const next = await testRoot(
        'Responder Expiring Root',
        notBefore,
        new Date(notBefore.getTime() + 365 * 86_400_000),
      );
      const oldRootId = randomUUID();
      await publish(rootInitialized(tenantId, oldRootId, old));
      await served(tenantId);
      const newRootId = randomUUID();
      await publish(await rootRenewed(tenantId, { caId: newRootId, previousRootCaId: oldRootId }, next, old));
      const base = `${baseUrl}/v1/tenants/${tenantId}`;
      await eventually(async () => {
        const answer = await http(`${base}/ca/${newRootId}.crt`);
        return answer.status === 200 ? answer : undefined;
      }, 'renewed root served');
      // While the first root is valid, it is the anchor.
      if (Date.now() < oldNotAfter.getTime() - 500)
        expect((await http(crtUrl(tenantId))).body).toEqual(Buffer.from(old.der));
      // Waits out the first root's remaining seconds, then up to a replica's CA cache (CA_CACHE_MS).
      const switched = await eventually(
        async () => {
          const answer = await http(crtUrl(tenantId));
          return Buffer.from(answer.body).equals(Buffer.from(next.der)) ? answer : undefined;
        },
        'ca.crt the renewed root after the first one expired',
        15_000,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(oldNotAfter.getTime());
      expect(switched.headers.get('etag')).not.toBeNull();
      const pem = await http(`${base}/ca.pem`);
      expect(Buffer.from(pem.body).toString()).toBe(derToPem(next.der));
      // The expired root stays at its own path, for whoever still follows it.
      expect((await http(`${base}/ca/${oldRootId}.crt`)).body).toEqual(Buffer.from(old.der));
    });

    it('refuses a ca.initialized issuance does not vouch for, published ahead of the real one, and serves the real one', async () => {
      const tenantId = randomUUID();
      const real = await caInitializedEvent(tenantId, 'Responder Real Root');
      vouchFor(real.event);
      const squatter = await caInitializedEvent(tenantId, 'Squatter Root');
      await publisher.events.publish(squatter.event);
      await publish(real.event);
      await expectServed(real);
    });

    it('replaces CA certificates recorded before the check with the ones issuance vouches for', async () => {
      const tenantId = randomUUID();
      // A squatter's row from before the responder asked issuance: vouched for here to get it in.
      const squatter = await caInitializedEvent(tenantId, 'Earlier Squatter Root');
      vouchFor(squatter.event);
      await publish(squatter.event);
      await expectServed(squatter);
      const real = await caInitializedEvent(tenantId, 'Responder Replacing Root');
      vouchFor(real.event);
      await publish(real.event);
      await eventually(
        async () => {
          const answer = await http(crtUrl(tenantId));
          return answer.body.equals(real.der) ? answer : undefined;
        },
        'the real root served instead of the squatter',
        10_000,
      );
    });

    it("records a ca.issuing-added only when the tenant's root signed the new CA", async () => {
      const tenantId = randomUUID();
      const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      const notAfter = new Date(notBefore.getTime() + 365 * 86_400_000);
      const [root, stranger] = [
        await testRoot('Responder Issuing Root', notBefore, notAfter),
        await testRoot('Responder Issuing Root', notBefore, notAfter),
      ];
      const rootId = randomUUID();
      await publish(rootInitialized(tenantId, rootId, root));
      await served(tenantId);
      const added = async (signer: TestRoot): Promise<EventEnvelope<IssuingCaAddedPayload>> => {
        const keys = await generateEcKeyPair(false);
        const der = await buildCaCertificate(
          {
            subject: {
              commonName: 'Responder Added Issuing CA',
              organization: 'Responder Test',
              country: 'DE',
            },
            notBefore,
            notAfter,
            serialNumber: randomSerialNumber(),
            pathLenConstraint: 0,
          },
          keys,
          { certificateDer: signer.der, privateKey: signer.keys.privateKey },
        );
        const caId = randomUUID();
        return {
          id: randomUUID(),
          type: EventType.IssuingCaAdded,
          tenantId,
          occurredAt: new Date().toISOString(),
          payload: {
            tenantId,
            caId,
            certificateDer: Buffer.from(der).toString('base64'),
            notBefore: notBefore.toISOString(),
            notAfter: notAfter.toISOString(),
            issuerCaId: rootId,
            rootCertificateDer: Buffer.from(root.der).toString('base64'),
            previousCaId: rootId,
          },
        };
      };
      // Same subject and issuer name as the tenant's root, signed by another key: refused.
      const forged = await added(stranger);
      await publish(forged);
      const genuine = await added(root);
      await publish(genuine);
      const base = `${baseUrl}/v1/tenants/${tenantId}/ca`;
      await eventually(async () => {
        const answer = await http(`${base}/${genuine.payload.caId}.crt`);
        return answer.status === 200 ? answer : undefined;
      }, 'the genuine issuing CA served');
      // Applied in order: the forged one came first and is not there.
      expect((await http(`${base}/${forged.payload.caId}.crt`)).status).toBe(404);
    });
  },
);
