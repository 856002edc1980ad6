import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@ca/config';
import { CustodiedKey, KeyCustodyError, LocalKeyCustody } from '@ca/custody';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { PendingCaEntity } from '../certificate-authority/pending-ca.entity';
import { CertificateEntity } from '../certificates/certificate.entity';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { SqlIssuanceDatabase } from '../issuance-database.store';
import { runCustodyCommandOnDatabase } from './custody-command';
import { finishInterruptedKekRotation } from './kek-rotation';

jest.setTimeout(60_000);

/**
 * `custody rotate-kek` as the ops tool runs it with DATABASE_URL (CA_KEK and CA_KEK_NEW given),
 * all or nothing; and the embedded start that finishes a rotation a crash interrupted.
 */
describe.each(databaseKinds())('KEK rotation on issuance schema (%s)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const oldKek = randomBytes(32);
  const newKek = randomBytes(32);
  const b64 = (kek: Buffer) => kek.toString('base64');

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: ISSUANCE_SCHEMA,
      entities: [CertificateAuthorityEntity, CertificateEntity, PendingCaEntity],
      migrations: ISSUANCE_MIGRATIONS,
    });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** Two tenants' CA rows whose keys are wrapped under `kek`. */
  async function seedAuthorities(kek: Buffer): Promise<void> {
    await dataSource.getRepository(CertificateAuthorityEntity).createQueryBuilder().delete().execute();
    const custody = new LocalKeyCustody(kek);
    for (let i = 0; i < 2; i++) {
      const tenantId = randomUUID();
      const id = randomUUID();
      const { key } = await custody.generateSigningKey({ tenantId, keyId: id });
      await dataSource.getRepository(CertificateAuthorityEntity).insert({
        id,
        tenantId,
        commonName: `Root ${i}`,
        organization: 'Acme',
        country: 'US',
        serialNumber: '01',
        certificateDer: Buffer.of(0x30, 0x00),
        notBefore: new Date(),
        notAfter: new Date(Date.now() + 86_400_000),
        keyCustody: 'local',
        keyAlgorithm: key.algorithm,
        publicKeySpki: Buffer.from(key.publicKeySpki),
        wrappedKey: Buffer.from(key.wrapped),
        createdAt: new Date(),
      });
    }
  }

  async function storedKeys(): Promise<{ ctx: { tenantId: string; keyId: string }; key: CustodiedKey }[]> {
    const rows = await dataSource.getRepository(CertificateAuthorityEntity).find({ order: { id: 'ASC' } });
    return rows.map((row) => ({
      ctx: { tenantId: row.tenantId, keyId: row.id },
      key: {
        keyId: row.id,
        algorithm: 'ECDSA-P256',
        publicKeySpki: new Uint8Array(row.publicKeySpki),
        wrapped: new Uint8Array(row.wrappedKey),
      },
    }));
  }

  async function opensUnder(kek: Buffer): Promise<boolean[]> {
    const custody = new LocalKeyCustody(kek);
    return Promise.all(
      (await storedKeys()).map(({ ctx, key }) =>
        custody.openSigningKey(ctx, key).then(
          () => true,
          (error: unknown) => (expect(error).toBeInstanceOf(KeyCustodyError), false),
        ),
      ),
    );
  }

  async function ops(env: Record<string, string>, args: string[], newKek?: string) {
    const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, ...env });
    const out: string[] = [];
    const err: string[] = [];
    const exit = await runCustodyCommandOnDatabase(
      config,
      args,
      { out: (line) => void out.push(line), err: (line) => void err.push(line) },
      newKek,
    );
    return { exit, out: out.join('\n'), err: err.join('\n') };
  }

  it('re-wraps every CA key under CA_KEK_NEW, then finds nothing left to do', async () => {
    await seedAuthorities(oldKek);
    const first = await ops({ CA_KEK: b64(oldKek) }, ['rotate-kek'], b64(newKek));
    expect(first).toMatchObject({ exit: 0, err: '' });
    expect(first.out).toContain('2 CA key(s) re-wrapped under the new KEK, 0 already were');
    expect(first.out).toContain('Now set CA_KEK to the new KEK');
    expect(await opensUnder(newKek)).toEqual([true, true]);
    expect(await opensUnder(oldKek)).toEqual([false, false]);

    const again = await ops({ CA_KEK: b64(newKek) }, ['rotate-kek'], b64(newKek));
    expect(again.out).toContain('0 CA key(s) re-wrapped under the new KEK, 2 already were');
  });

  it('changes nothing when one key does not open under CA_KEK: one transaction', async () => {
    await seedAuthorities(oldKek);
    const [, second] = await storedKeys();
    const stranger = await new LocalKeyCustody(randomBytes(32)).generateSigningKey(second.ctx);
    await dataSource.getRepository(CertificateAuthorityEntity).update(
      { id: second.ctx.keyId },
      {
        wrappedKey: Buffer.from(stranger.key.wrapped),
        publicKeySpki: Buffer.from(stranger.key.publicKeySpki),
      },
    );
    const failed = await ops({ CA_KEK: b64(oldKek) }, ['rotate-kek'], b64(newKek));
    expect(failed.exit).toBe(1);
    expect(failed.err).toMatch(/^ops: custody rotate-kek failed, nothing changed: Cannot open key /);
    expect(await opensUnder(oldKek)).toEqual([true, false]);
    expect(await opensUnder(newKek)).toEqual([false, false]);
  });

  it('needs the new KEK when CA_KEK is set, and refuses a malformed one, with exit code 2', async () => {
    expect(await ops({ CA_KEK: b64(oldKek) }, ['rotate-kek'])).toMatchObject({
      exit: 2,
      err: expect.stringContaining('give the new KEK with --new-kek-file FILE or CA_KEK_NEW'),
    });
    expect(await ops({ CA_KEK: b64(oldKek) }, ['rotate-kek'], 'c2hvcnQ=')).toMatchObject({
      exit: 2,
      err: 'ops: the new KEK in CA_KEK_NEW must be base64 of 32 bytes',
    });
  });

  it('at an embedded start, finishes a rotation that a crash interrupted, then drops the backup', async () => {
    await seedAuthorities(oldKek);
    const dataDir = join(database.dataDir, `interrupted-${randomUUID()}`);
    mkdirSync(join(dataDir, 'keys'), { recursive: true });
    writeFileSync(join(dataDir, 'keys', 'ca-kek'), b64(newKek), { mode: 0o600 });
    writeFileSync(join(dataDir, 'keys', 'ca-kek.previous'), b64(oldKek), { mode: 0o600 });
    const config = loadConfig({ DATA_DIR: dataDir });
    const custody = new LocalKeyCustody(newKek, [oldKek]);

    expect(await finishInterruptedKekRotation(config, new SqlIssuanceDatabase(dataSource), custody)).toEqual({
      rewrapped: 2,
      alreadyCurrent: 0,
    });
    expect(await opensUnder(newKek)).toEqual([true, true]);
    expect(existsSync(join(dataDir, 'keys', 'ca-kek.previous'))).toBe(false);
    expect(
      await finishInterruptedKekRotation(config, new SqlIssuanceDatabase(dataSource), custody),
    ).toBeUndefined();
  });
});
