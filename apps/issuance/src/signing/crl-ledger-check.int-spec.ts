import { randomUUID } from 'node:crypto';
import { CaError, ErrorCode, lastSignedCrlNumber } from '@ca/contracts';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { RevokedCertificateEntry, encodeTbsCertList, inspectTbsCertList } from '@ca/pki';
import { TestPki, createTestPki } from '@ca/pki/testing';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { CertificateEntity } from '../certificates/certificate.entity';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { CrlAuthority, CrlLedgerCheck, MAX_CRL_NUMBER_STEP } from './crl-ledger-check';

jest.setTimeout(120_000);

const HOUR = 3_600_000;

/**
 * Before issuance signs a CRL, its entries, times and number must agree with issuance's own
 * ledger: forged TBSCertLists (an entry missing, one extra, another reason or date, a number not
 * higher than the last, a huge one, stale or long-lived) are refused; the genuine one is signed.
 */
describe.each(databaseKinds())('CRL ledger check (%s)', (kind) => {
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
    pki = await createTestPki('Ledger Root');
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  async function newAuthority(under?: {
    tenantId: string;
    rootId: string;
  }): Promise<CrlAuthority & { tenantId: string }> {
    const authority = { id: randomUUID(), createdAt: new Date(Date.now() - 10 * 86_400_000) };
    const tenantId = under?.tenantId ?? randomUUID();
    await dataSource.getRepository(CertificateAuthorityEntity).insert({
      ...authority,
      tenantId,
      ...(under && { role: 'issuing', issuerCaId: under.rootId }),
      commonName: 'Ledger Root',
      organization: 'Acme',
      country: 'US',
      serialNumber: '01',
      certificateDer: Buffer.from(pki.caDer),
      notBefore: new Date(),
      notAfter: new Date(Date.now() + 86_400_000),
      keyCustody: 'local',
      keyAlgorithm: 'ECDSA-P256',
      publicKeySpki: Buffer.of(0x30, 0x00),
      wrappedKey: Buffer.of(0),
      createdBy: 'tester',
    });
    return { ...authority, tenantId };
  }

  /** `count` certificates of the CA, the first `revoked` of them revoked an hour ago and before. */
  async function certificates(
    caId: string,
    count: number,
    revoked: number,
  ): Promise<RevokedCertificateEntry[]> {
    const now = new Date();
    const rows: { serial_number: string; revoked_at: Date | null; revocation_reason_code: number | null }[] =
      await dataSource.query(
        `INSERT INTO issuance.certificates (id, tenant_id, ca_id, serial_number, client_id, common_name,
           organization, organizational_unit, country, certificate_der, not_before, not_after, issued_at,
           revoked_at, revocation_reason, revocation_reason_code, issued_by, revoked_by)
         SELECT gen_random_uuid(), gen_random_uuid(), $1::uuid, md5($1::text || i::text), 'c', 'cn', 'o', 'ou', 'US',
                '\\x3000', $2, $2::timestamptz + interval '1 day', $2,
                CASE WHEN i <= $4 THEN $2::timestamptz - interval '1 hour' - i * interval '1 second' END,
                CASE WHEN i <= $4 THEN 'test' END,
                CASE WHEN i <= $4 THEN (ARRAY[0, 1, 4, 8])[1 + i % 4] END,
                'tester', CASE WHEN i <= $4 THEN 'tester' END
           FROM generate_series(1, $3::int) AS i
         RETURNING serial_number, revoked_at, revocation_reason_code`,
        [caId, now, count, revoked],
      );
    return rows
      .filter((row) => row.revoked_at !== null)
      .map((row) => ({
        serialNumberHex: row.serial_number,
        revocationDate: new Date(row.revoked_at!),
        // removeFromCRL (8) is published as unspecified, as revocation publishes it.
        reasonCode: row.revocation_reason_code === 8 ? 0 : row.revocation_reason_code!,
      }));
  }

  function tbs(
    entries: RevokedCertificateEntry[],
    crlNumber: bigint,
    overrides: { thisUpdate?: Date; validityMs?: number } = {},
  ) {
    const thisUpdate = overrides.thisUpdate ?? new Date(Math.floor(Date.now() / 1000) * 1000);
    const der = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber,
      thisUpdate,
      nextUpdate: new Date(thisUpdate.getTime() + (overrides.validityMs ?? 24 * HOUR)),
      entries,
    });
    return { der, summary: inspectTbsCertList(der) };
  }

  const check = new (class {
    admit(authority: CrlAuthority, crl: ReturnType<typeof tbs>) {
      return new CrlLedgerCheck(dataSource).admit(authority, crl.der, crl.summary);
    }
  })();

  async function refusal(promise: Promise<unknown>): Promise<CaError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CaError);
    expect((error as CaError).code).toBe(ErrorCode.Forbidden);
    return error as CaError;
  }

  it('signs the genuine CRL, in any entry order, and refuses forged entries', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 12, 8);
    expect(entries).toHaveLength(8);
    await check.admit(authority, tbs([...entries].reverse(), 1n));

    const missing = await refusal(check.admit(authority, tbs(entries.slice(1), 2n)));
    expect(missing.message).toMatch(/0 not revoked here.*1 revoked certificates missing/);
    const notRevoked = {
      serialNumberHex: 'abcdef0123',
      revocationDate: new Date(Date.now() - HOUR),
      reasonCode: 1,
    };
    const extra = await refusal(check.admit(authority, tbs([...entries, notRevoked], 2n)));
    expect(extra.message).toMatch(/1 not revoked here.*0 revoked certificates missing/);
    const otherReason = entries.map((e, i) =>
      i === 0 ? { ...e, reasonCode: e.reasonCode === 1 ? 4 : 1 } : e,
    );
    await refusal(check.admit(authority, tbs(otherReason, 2n)));
    const otherDate = entries.map((e, i) =>
      i === 0 ? { ...e, revocationDate: new Date(e.revocationDate.getTime() - 1000) } : e,
    );
    await refusal(check.admit(authority, tbs(otherDate, 2n)));
    const twice = await refusal(check.admit(authority, tbs([...entries, entries[0]], 2n)));
    expect(twice.message).toMatch(/1 not revoked here/);

    await check.admit(authority, tbs(entries, 2n));
  });

  it('refuses a CRLNumber not higher than the last signed (naming it), a jump past the step, and odd times', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 3, 2);
    await check.admit(authority, tbs(entries, 5n));
    const used = await refusal(check.admit(authority, tbs(entries, 5n)));
    expect(used.message).toMatch(/last this CA signed is 5/);
    // Named, so revocation moves past a number signed for a CRL it never stored.
    expect(lastSignedCrlNumber(used)).toBe(5n);
    await refusal(check.admit(authority, tbs(entries, 4n)));
    await refusal(check.admit(authority, tbs(entries, 6n + MAX_CRL_NUMBER_STEP)));
    await refusal(check.admit(authority, tbs(entries, 6n, { thisUpdate: new Date(Date.now() - 2 * HOUR) })));
    await refusal(check.admit(authority, tbs(entries, 6n, { validityMs: 8 * 24 * HOUR })));
    await check.admit(authority, tbs(entries, 6n));

    // A number is signed once, however long ago (RFC 5280 5.2.3).
    await dataSource.query(
      `UPDATE issuance.crl_numbers SET signed_at = now() - interval '2 days' WHERE ca_id = $1`,
      [authority.id],
    );
    expect(lastSignedCrlNumber(await refusal(check.admit(authority, tbs(entries, 6n))))).toBe(6n);

    const fresh = await newAuthority();
    const huge = await refusal(check.admit(fresh, tbs([], 2n ** 150n)));
    expect(huge.message).toMatch(/higher than this CA could have reached/);
    await check.admit(fresh, tbs([], 1n));
  });

  it("checks a root's CRL against the issuing CAs it signed that are revoked (root.crl)", async () => {
    const root = await newAuthority();
    const issuing = await newAuthority({ tenantId: root.tenantId, rootId: root.id });
    await check.admit(root, tbs([], 1n));
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - HOUR);
    await dataSource.query(
      `UPDATE issuance.certificate_authorities SET revoked_at = $2, revocation_reason_code = 1 WHERE id = $1`,
      [issuing.id, revokedAt],
    );
    const missing = await refusal(check.admit(root, tbs([], 2n)));
    expect(missing.message).toMatch(/1 revoked certificates missing/);
    await check.admit(root, tbs([{ serialNumberHex: '01', revocationDate: revokedAt, reasonCode: 1 }], 2n));
    // The issuing CA's own CRL does not list itself.
    await check.admit(issuing, tbs([], 1n));
  });

  it('lets exactly one of two concurrent signings take a CRLNumber', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 2, 1);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, () => check.admit(authority, tbs(entries, 1n))),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  });

  it('tolerates a revocation of the last seconds that has not reached the CRL yet, not an older one', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 3, 2);
    await dataSource.query(
      `UPDATE issuance.certificates SET revoked_at = now(), revocation_reason_code = 1
        WHERE ca_id = $1 AND revoked_at IS NULL`,
      [authority.id],
    );
    await check.admit(authority, tbs(entries, 1n));
  });

  it('checks a CRL of 100,000 entries quickly (one indexed read, a set compare)', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 100_000, 100_000);
    const crl = tbs(entries, 1n);
    const started = performance.now();
    await check.admit(authority, crl);
    const tookMs = performance.now() - started;
    console.log(`CRL ledger check of 100,000 entries (${kind}): ${tookMs.toFixed(0)} ms`);
    expect(tookMs).toBeLessThan(5_000);
  });
});
