import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { CaError, IssuanceApi } from '@ca/contracts';
import { KeyCustody, LocalKeyCustody } from '@ca/custody';
import { RpcClient } from '@ca/messaging';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { createTestPki } from '@ca/pki/testing';
import { DataSource } from 'typeorm';
import { OCSP_MIGRATIONS } from '../migrations';
import { OCSP_SCHEMA } from '../ocsp.schema';
import { OcspSignerKeeper } from './ocsp-signer.keeper';
import { ROOT_SIGNERS, SqlOcspSignerStore } from './ocsp-signer.store';
import { SqlRequestedSignerStore } from './requested-signer.store';

/**
 * The root-signer keeper's sweep asks issuance only for signers it can certify: never for a
 * corporate root (no key of it here), and not again after issuance refused one for good. Each
 * question used to make a key in custody, every 30 s, forever.
 */
jest.setTimeout(60_000);

describe.each(databaseKinds())('OcspSignerKeeper sweep (%s database)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let keysMade: number;
  let asked: string[];
  let keeper: OcspSignerKeeper;

  // A real custody (the keeper signs its certification request with the key it made), counting keys.
  const local = new LocalKeyCustody(randomBytes(32));
  const custody = {
    generateSigningKey: (...args: Parameters<KeyCustody['generateSigningKey']>) => {
      keysMade++;
      return local.generateSigningKey(...args);
    },
    openSigningKey: (...args: Parameters<KeyCustody['openSigningKey']>) => local.openSigningKey(...args),
  } as unknown as KeyCustody;
  const issuance = {
    send: (_pattern: string, command: { tenantId: string }) => {
      asked.push(command.tenantId);
      return Promise.reject(CaError.conflict('no key of this root is held here'));
    },
  } as unknown as RpcClient<IssuanceApi>;

  const addTenant = async (externalRoot: boolean) => {
    const tenantId = randomUUID();
    const { caDer } = await createTestPki();
    const der = Buffer.from(caDer);
    await dataSource.query(
      `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at, root_certificate_der, external_root)
       VALUES ($1, $2, $3, now() + interval '1 year', now(), $3, $4)`,
      [tenantId, randomUUID(), der, externalRoot],
    );
    return tenantId;
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: OCSP_SCHEMA,
      entities: [],
      migrations: OCSP_MIGRATIONS,
    });
    keeper = new OcspSignerKeeper(
      new SqlOcspSignerStore(dataSource, ROOT_SIGNERS),
      new SqlRequestedSignerStore(dataSource),
      custody,
      issuance,
      60_000,
    );
  });

  beforeEach(() => {
    keysMade = 0;
    asked = [];
  });

  afterAll(async () => {
    await keeper?.stop();
    await dataSource?.destroy();
    await database?.drop();
  });

  it('never asks for a corporate root signer, and asks once for one issuance refuses', async () => {
    const corporate = await addTenant(true);
    const refusedOnce = await addTenant(false);
    await keeper.sweep();
    await keeper.sweep();
    expect(asked).not.toContain(corporate);
    expect(asked).toEqual([refusedOnce]);
    expect(keysMade).toBe(1);
    // An event about the tenant's CAs asks again: the answer may have changed.
    await keeper.ensure(refusedOnce);
    expect(asked).toEqual([refusedOnce, refusedOnce]);
  });
});
