import { X509Certificate, createHash, randomUUID, webcrypto } from 'node:crypto';
import { CaError, ErrorCode, EventType, OCSP_SIGNERS_PER_HOUR, eventPayloadProblem } from '@ca/contracts';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { TestPki, buildTestCsr, createTestPki, withBrokenSignature } from '@ca/pki/testing';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';
import { CertificateEntity } from '../certificates/certificate.entity';
import { SqlIssuanceDatabase } from '../issuance-database.store';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { IssueOcspSignerHandler } from './issue-ocsp-signer.handler';

jest.setTimeout(120_000);

/**
 * A delegated OCSP signer is certified only for a key the request proves to hold, at most
 * OCSP_SIGNERS_PER_HOUR per tenant CA, each recorded and announced (`ocsp-signer.certified`).
 */
describe.each(databaseKinds())('OCSP signer certification (%s)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pki: TestPki;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: ISSUANCE_SCHEMA,
      entities: [CertificateAuthorityEntity, CertificateEntity],
      migrations: ISSUANCE_MIGRATIONS,
    });
    pki = await createTestPki('Signer Root');
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** A tenant CA row and a handler whose signer opens it with the test PKI's key. */
  async function newHandler(): Promise<{ handler: IssueOcspSignerHandler; tenantId: string; caId: string }> {
    const authority = {
      id: randomUUID(),
      tenantId: randomUUID(),
      commonName: 'Signer Root',
      organization: 'Acme',
      country: 'US',
      serialNumber: '01',
      certificateDer: Buffer.from(pki.caDer),
      notBefore: new Date(Date.now() - 86_400_000),
      notAfter: new Date(Date.now() + 365 * 86_400_000),
      keyCustody: 'local',
      keyAlgorithm: 'ECDSA-P256',
      publicKeySpki: Buffer.of(0x30, 0x00),
      wrappedKey: Buffer.of(0),
      createdBy: 'tester',
    };
    await dataSource.getRepository(CertificateAuthorityEntity).insert(authority);
    const signer = {
      forIssuer: async () => ({
        authority,
        privateKey: pki.caKeys.privateKey,
        validUntil: authority.notAfter,
      }),
    } as unknown as CertificateAuthoritySigner;
    return {
      handler: new IssueOcspSignerHandler(signer, new SqlIssuanceDatabase(dataSource), () => undefined),
      tenantId: authority.tenantId,
      caId: authority.id,
    };
  }

  const newKeys = () =>
    webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ]) as Promise<webcrypto.CryptoKeyPair>;

  async function refusal(promise: Promise<unknown>): Promise<CaError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CaError);
    return error as CaError;
  }

  it('certifies the key of a request signed with it, records and announces it', async () => {
    const { handler, tenantId, caId } = await newHandler();
    const keys = await newKeys();
    const csr = await buildTestCsr(keys, 'OCSP signer');
    const issued = await handler.execute({
      tenantId,
      certificationRequest: Buffer.from(csr).toString('base64'),
    });
    const certificate = new X509Certificate(Buffer.from(issued.certificateDer, 'base64'));
    const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
    expect(certificate.publicKey.export({ type: 'spki', format: 'der' })).toEqual(spki);
    const sha256 = createHash('sha256').update(spki).digest('hex');

    const audit = await dataSource.query(
      'SELECT tenant_id, ca_id, serial_number, public_key_sha256 FROM issuance.ocsp_signer_certifications WHERE ca_id = $1',
      [caId],
    );
    expect(audit).toEqual([
      {
        tenant_id: tenantId,
        ca_id: caId,
        serial_number: certificate.serialNumber.toLowerCase(),
        public_key_sha256: sha256,
      },
    ]);
    const [event]: { payload: Record<string, unknown> }[] = await dataSource.query(
      `SELECT payload FROM issuance.outbox WHERE type = $1 AND payload->>'caId' = $2`,
      [EventType.OcspSignerCertified, caId],
    );
    expect(eventPayloadProblem(EventType.OcspSignerCertified, event.payload)).toBeUndefined();
    expect(event.payload).toMatchObject({ tenantId, caId, publicKeySha256: sha256 });
  });

  it('refuses a request without proof of possession, or a bare public key, and records nothing', async () => {
    const { handler, tenantId, caId } = await newHandler();
    const csr = await buildTestCsr(await newKeys(), 'OCSP signer');
    const broken = await refusal(
      handler.execute({
        tenantId,
        certificationRequest: Buffer.from(withBrokenSignature(csr)).toString('base64'),
      }),
    );
    expect(broken.code).toBe(ErrorCode.CsrSignatureInvalid);
    const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', (await newKeys()).publicKey));
    const bare = await refusal(
      handler.execute({ tenantId, publicKeySpki: spki.toString('base64') } as never),
    );
    expect(bare.code).toBe(ErrorCode.ValidationFailed);
    const garbage = await refusal(handler.execute({ tenantId, certificationRequest: 'AAAA' }));
    expect(garbage.code).toBe(ErrorCode.CsrInvalid);
    const rows = await dataSource.query(
      'SELECT 1 FROM issuance.ocsp_signer_certifications WHERE ca_id = $1',
      [caId],
    );
    expect(rows).toEqual([]);
  });

  it('certifies at most OCSP_SIGNERS_PER_HOUR per tenant CA within the hour, also when asked at once', async () => {
    const { handler, tenantId, caId } = await newHandler();
    const requests = await Promise.all(
      Array.from({ length: OCSP_SIGNERS_PER_HOUR + 3 }, async () =>
        Buffer.from(await buildTestCsr(await newKeys(), 'OCSP signer')).toString('base64'),
      ),
    );
    const outcomes = await Promise.allSettled(
      requests.map((certificationRequest) => handler.execute({ tenantId, certificationRequest })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(OCSP_SIGNERS_PER_HOUR);
    for (const outcome of outcomes.filter((o) => o.status === 'rejected'))
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: ErrorCode.RateLimited });

    // An hour later the next one is certified again (the responder renews days ahead).
    await dataSource.query(
      `UPDATE issuance.ocsp_signer_certifications SET certified_at = certified_at - interval '61 minutes' WHERE ca_id = $1`,
      [caId],
    );
    await handler.execute({ tenantId, certificationRequest: requests[0] });
  });
});
