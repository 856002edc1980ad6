import { randomUUID } from 'node:crypto';
import { CaError, ErrorCode, crlEntryDifferences, lastSignedCrlNumber } from '@ca/contracts';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { RevokedCertificateEntry, encodeTbsCertList, inspectTbsCertList } from '@ca/pki';
import { TestPki, createTestPki } from '@ca/pki/testing';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { CertificateEntity } from '../certificates/certificate.entity';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { CrlAuthority, CrlLedgerCheck } from './crl-ledger-check';
import { SqlCrlEntryStore } from './crl-entry.store';
import { SqlCrlNumberStore } from './crl-number.store';

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
      return new CrlLedgerCheck(
        new SqlCrlEntryStore(dataSource.manager),
        new SqlCrlNumberStore(dataSource.manager),
      ).admit(authority, crl.der, crl.summary);
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
    expect(missing.message).toMatch(/0 not revoked here.*1 revoked at or before .* missing/);
    // Named as issuance records it, so revocation can correct its ledger and build again.
    expect(crlEntryDifferences(missing)).toEqual([
      expect.objectContaining({
        kind: 'missing',
        serialHex: entries[0].serialNumberHex,
        revokedAt: new Date(Math.floor(entries[0].revocationDate.getTime() / 1000) * 1000),
        reasonCode: entries[0].reasonCode,
      }),
    ]);
    const notRevoked = {
      serialNumberHex: 'abcdef0123',
      revocationDate: new Date(Date.now() - HOUR),
      reasonCode: 1,
    };
    const extra = await refusal(check.admit(authority, tbs([...entries, notRevoked], 2n)));
    expect(extra.message).toMatch(/1 not revoked here.*0 revoked at or before .* missing/);
    expect(crlEntryDifferences(extra)).toEqual([{ kind: 'extra', serialHex: 'abcdef0123' }]);
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

  it('refuses a CRLNumber not the last signed plus one (naming the last when lower), odd times and a validity past 24 h', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 3, 2);
    await check.admit(authority, tbs(entries, 5n));
    const used = await refusal(check.admit(authority, tbs(entries, 5n)));
    expect(used.message).toMatch(/last this CA signed is 5/);
    // Named, so revocation moves past a number signed for a CRL it never stored.
    expect(lastSignedCrlNumber(used)).toBe(5n);
    await refusal(check.admit(authority, tbs(entries, 4n)));
    const jump = await refusal(check.admit(authority, tbs(entries, 7n)));
    expect(jump.message).toMatch(/CRL number 7 is not 6/);
    expect(lastSignedCrlNumber(jump)).toBeUndefined();
    await refusal(check.admit(authority, tbs(entries, 6n, { thisUpdate: new Date(Date.now() - 2 * HOUR) })));
    // What revocation asks for (24 h) and no longer: a forged week-long CRL is refused.
    await refusal(check.admit(authority, tbs(entries, 6n, { validityMs: 24 * HOUR + 1000 })));
    await refusal(check.admit(authority, tbs(entries, 6n, { validityMs: 7 * 24 * HOUR })));
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
    expect(missing.message).toMatch(/1 revoked at or before .* missing/);
    expect(crlEntryDifferences(missing)).toEqual([
      { kind: 'missing', serialHex: '01', revokedAt, reasonCode: 1, id: issuing.id },
    ]);
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

  it('wants every revocation up to thisUpdate, and every one an earlier CRL of the CA listed (no grace)', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 4, 2);
    const second = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);
    const now = Date.now();
    await dataSource.query(
      `UPDATE issuance.certificates SET revoked_at = $2, revocation_reason_code = 1
        WHERE ca_id = $1 AND revoked_at IS NULL`,
      [authority.id, second(now - 2000)],
    );
    const recent = await dataSource.query(
      `SELECT serial_number FROM issuance.certificates WHERE ca_id = $1 AND revoked_at = $2 ORDER BY serial_number`,
      [authority.id, second(now - 2000)],
    );
    const recentEntries: RevokedCertificateEntry[] = recent.map((row: { serial_number: string }) => ({
      serialNumberHex: row.serial_number,
      revocationDate: second(now - 2000),
      reasonCode: 1,
    }));
    // Revoked two seconds ago: a CRL as of three seconds ago may leave them out, none as of now.
    const asOfNow = await refusal(check.admit(authority, tbs(entries, 1n, { thisUpdate: second(now) })));
    expect(asOfNow.message).toMatch(/2 revoked at or before .* missing/);
    const atTheSecond = await refusal(
      check.admit(authority, tbs(entries, 1n, { thisUpdate: second(now - 2000) })),
    );
    expect(atTheSecond.message).toMatch(/2 revoked at or before/);
    await check.admit(authority, tbs([...entries, recentEntries[0]], 1n, { thisUpdate: second(now - 3000) }));
    // The CRL numbered 1 listed one of them: no later CRL leaves it out, whatever its thisUpdate;
    // the other, never listed, may still be absent from a CRL dated before it.
    const older = await refusal(
      check.admit(authority, tbs(entries, 2n, { thisUpdate: second(now - 4 * 60_000) })),
    );
    expect(older.message).toMatch(/1 revoked at or before .* missing/);
    expect(crlEntryDifferences(older)).toEqual([
      expect.objectContaining({ kind: 'missing', serialHex: recentEntries[0].serialNumberHex }),
    ]);
    await check.admit(
      authority,
      tbs([...entries, recentEntries[0]], 2n, { thisUpdate: second(now - 60_000) }),
    );
    await check.admit(authority, tbs([...entries, ...recentEntries], 3n, { thisUpdate: second(now) }));
    await refusal(
      check.admit(authority, tbs([...entries, recentEntries[0]], 4n, { thisUpdate: second(now - 60_000) })),
    );
  });

  it('takes a released hold and an expired certificate as the ledger has them', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 3, 3);
    // Released: no longer revoked, so no longer listed; expired: still listed (RFC 5280 5.1.2.6).
    await dataSource.query(
      `UPDATE issuance.certificates SET revoked_at = NULL, revocation_reason = NULL, revocation_reason_code = NULL
        WHERE ca_id = $1 AND serial_number = $2`,
      [authority.id, entries[0].serialNumberHex],
    );
    await dataSource.query(
      `UPDATE issuance.certificates SET not_after = now() - interval '1 day' WHERE ca_id = $1 AND serial_number = $2`,
      [authority.id, entries[1].serialNumberHex],
    );
    const stillHeld = await refusal(check.admit(authority, tbs(entries, 1n)));
    expect(crlEntryDifferences(stillHeld)).toEqual([
      { kind: 'extra', serialHex: entries[0].serialNumberHex.replace(/^0+/, '') },
    ]);
    await refusal(check.admit(authority, tbs(entries.slice(2), 1n)));
    await check.admit(authority, tbs(entries.slice(1), 1n));
  });

  // Its speed at 100,000 entries is measured in the service by `npm run bench -- revocation` (a CRL
  // of that size is signed, so checked, after every revocation): no wall-clock assertion here.
  it('admits a genuine CRL of 20,000 entries and names the one entry a forged copy of it drops', async () => {
    const authority = await newAuthority();
    const entries = await certificates(authority.id, 20_000, 20_000);
    const started = performance.now();
    const dropped = await refusal(check.admit(authority, tbs(entries.slice(1), 1n)));
    expect(crlEntryDifferences(dropped)).toEqual([
      expect.objectContaining({ kind: 'missing', serialHex: entries[0].serialNumberHex }),
    ]);
    await check.admit(authority, tbs(entries, 1n));
    console.log(
      `CRL ledger check of 20,000 entries, twice (${kind}): ${(performance.now() - started).toFixed(0)} ms`,
    );
  });
});
