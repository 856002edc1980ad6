import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { EncodedCrlEntries, assembleCertificateList, encodeTbsCertList, parseCrl, signTbs } from '@ca/pki';
import { TestPki, createTestPki } from '@ca/pki/testing';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { REVOCATION_MIGRATIONS } from '../migrations';
import { REVOCATION_SCHEMA } from '../revocation.schema';
import { SqlRevokedCertificateStore } from '../stores/revoked-certificate.store';
import { CrlEntriesCache } from './crl-entries.cache';

/**
 * The entries a CRL build lists, kept between builds: every revocation in the ledger exactly once,
 * whatever order the revocations commit in, while a build after one more revocation reads only
 * the newest rows (100,000 entries).
 */
jest.setTimeout(60_000);

describe.each(databaseKinds())('CrlEntriesCache (%s database)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pki: TestPki;
  /** Rows each ledger read returned, newest read last. */
  let rowsRead: number[];

  beforeAll(async () => {
    pki = await createTestPki('Entries Cache Test Root');
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: REVOCATION_SCHEMA,
      entities: [],
      migrations: REVOCATION_MIGRATIONS,
    });
    const query = dataSource.query.bind(dataSource);
    dataSource.query = (async (sql: string, ...rest: unknown[]) => {
      const rows: unknown = await query(sql, ...(rest as []));
      if (sql.includes('WITH total')) {
        rowsRead.push((rows as { serial_number: string | null }[]).filter((r) => r.serial_number).length);
      }
      return rows;
    }) as typeof dataSource.query;
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  beforeEach(() => {
    rowsRead = [];
  });

  async function newIssuer(): Promise<string> {
    const caId = randomUUID();
    await dataSource.query(
      `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after)
       VALUES ($1, $2, $3, now() + interval '1 year')`,
      [randomUUID(), caId, Buffer.from(pki.caDer)],
    );
    return caId;
  }

  /** Revokes `serials`, recorded `agoSeconds` before now (an old revocation or a late commit). */
  async function revoke(caId: string, serials: string[], agoSeconds = 0): Promise<void> {
    await dataSource.query(
      `INSERT INTO revocation.revoked_certificates
         (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code, recorded_at)
       SELECT i.tenant_id, $1, s, gen_random_uuid(), now(), 1, now() - make_interval(secs => $3::int)
         FROM unnest($2::text[]) AS s, revocation.crl_issuers i WHERE i.ca_id = $1`,
      [caId, serials, agoSeconds],
    );
  }

  /** The serials a signed CRL with these entries lists, sorted. */
  async function listed(entries: EncodedCrlEntries): Promise<string[]> {
    const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
    const tbs = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 1n,
      thisUpdate,
      nextUpdate: new Date(thisUpdate.getTime() + 3_600_000),
      entries,
    });
    const crl = parseCrl(assembleCertificateList(tbs, await signTbs(tbs, pki.caKeys.privateKey)));
    return crl.entries.map((e) => e.serialNumberHex.toUpperCase()).sort();
  }

  const serials = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}${i.toString(16).padStart(4, '0')}`.toUpperCase());

  it('lists every revocation once, reading only the newest rows after the first build', async () => {
    const caId = await newIssuer();
    const cache = new CrlEntriesCache(new SqlRevokedCertificateStore(dataSource.manager));
    // 200 revocations recorded an hour and more ago, one a minute apart.
    for (const [i, serial] of serials('A1', 200).entries()) await revoke(caId, [serial], 3600 + i * 60);
    expect(await listed(await cache.read(caId))).toEqual(serials('A1', 200));

    await revoke(caId, ['B100']);
    expect(await listed(await cache.read(caId))).toEqual([...serials('A1', 200), 'B100'].sort());
    await revoke(caId, ['B200', 'B300']);
    const entries = await cache.read(caId);
    expect(entries.count).toBe(203);
    expect(await listed(entries)).toEqual([...serials('A1', 200), 'B100', 'B200', 'B300'].sort());
    // The full read, then only rows recorded since shortly before the newest one seen (the newest
    // old one with B100, then the B ones).
    expect(rowsRead).toEqual([200, 2, 3]);
  });

  it('still lists a revocation that committed after newer ones, older than the overlap reaches', async () => {
    const caId = await newIssuer();
    const cache = new CrlEntriesCache(new SqlRevokedCertificateStore(dataSource.manager));
    await revoke(caId, ['C1', 'C2']);
    await cache.read(caId);
    await revoke(caId, ['C3'], 60);
    await revoke(caId, ['C4']);
    expect(await listed(await cache.read(caId))).toEqual(['C1', 'C2', 'C3', 'C4']);
    // C3 is before the window: 2 kept + C4 ≠ 4 in the ledger, so it read everything again.
    expect(rowsRead.slice(1, 3)).toEqual([3, 4]);
    await revoke(caId, ['C5']);
    expect(await listed(await cache.read(caId))).toEqual(['C1', 'C2', 'C3', 'C4', 'C5']);
  });

  it('keeps each replica right on its own: another cache that read earlier catches up', async () => {
    const caId = await newIssuer();
    const replicaA = new CrlEntriesCache(new SqlRevokedCertificateStore(dataSource.manager));
    const replicaB = new CrlEntriesCache(new SqlRevokedCertificateStore(dataSource.manager));
    await revoke(caId, ['D1']);
    await replicaA.read(caId);
    await replicaB.read(caId);
    await revoke(caId, ['D2']);
    expect(await listed(await replicaA.read(caId))).toEqual(['D1', 'D2']);
    await revoke(caId, ['D3']);
    expect(await listed(await replicaB.read(caId))).toEqual(['D1', 'D2', 'D3']);
    expect(await listed(await replicaA.read(caId))).toEqual(['D1', 'D2', 'D3']);
  });

  it('drops a released hold and lists the same serial again with its new revocation', async () => {
    const caId = await newIssuer();
    const replicaA = new CrlEntriesCache(new SqlRevokedCertificateStore(dataSource.manager));
    const replicaB = new CrlEntriesCache(new SqlRevokedCertificateStore(dataSource.manager));
    await revoke(caId, ['F1', 'F2']);
    await dataSource.query(
      `UPDATE revocation.revoked_certificates SET reason_code = 6, revocation_date = now() - interval '1 hour'
        WHERE ca_id = $1 AND serial_number = 'F1'`,
      [caId],
    );
    await replicaA.read(caId);
    await replicaB.read(caId);
    // What RevocationLedger.releaseHold does, in one transaction: the entry goes, the count rises.
    const release = () =>
      dataSource.transaction(async (manager) => {
        await manager.query(
          `DELETE FROM revocation.revoked_certificates WHERE ca_id = $1 AND serial_number = 'F1'`,
          [caId],
        );
        await manager.query(
          'UPDATE revocation.crl_issuers SET entries_removed = entries_removed + 1 WHERE ca_id = $1',
          [caId],
        );
      });
    await release();
    expect(await listed(await replicaA.read(caId))).toEqual(['F2']);
    // Released, then revoked again for good (keyCompromise, now): same serial, same count as the
    // replica kept, but the hold entry it kept must not be listed.
    await revoke(caId, ['F1']);
    for (const replica of [replicaB, replicaA]) {
      const entries = await replica.read(caId);
      expect(await listed(entries)).toEqual(['F1', 'F2']);
      const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
      const tbs = encodeTbsCertList({
        issuerCertificateDer: pki.caDer,
        crlNumber: 2n,
        thisUpdate,
        nextUpdate: new Date(thisUpdate.getTime() + 3_600_000),
        entries,
      });
      const crl = parseCrl(assembleCertificateList(tbs, await signTbs(tbs, pki.caKeys.privateKey)));
      expect(crl.entries.find((e) => e.serialNumberHex.toUpperCase() === 'F1')?.reasonCode).toBe(1);
    }
  });

  it('gives none for a CA without revocations, then its first one', async () => {
    const caId = await newIssuer();
    const cache = new CrlEntriesCache(new SqlRevokedCertificateStore(dataSource.manager));
    expect((await cache.read(caId)).count).toBe(0);
    await revoke(caId, ['E1']);
    expect(await listed(await cache.read(caId))).toEqual(['E1']);
  });
});
