import { randomUUID } from 'node:crypto';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { insertPlaceholderCa } from '../testing/placeholder-ca.store';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { CreateCustomExtensionArcs1764900000000 } from '../migrations/1764900000000-create-custom-extension-arcs';
import { SqlCustomExtensionArcStore } from './custom-extension-arc.store';
import { CustomExtensionArcs } from './custom-extension-arcs';

jest.setTimeout(60_000);

/** Custom-extension arcs against a real schema: stable per key, per tenant, and under concurrent first use. */
describe.each(databaseKinds())('custom extension arcs (%s)', (kind) => {
  let database: TestDatabase;
  const dataSources: DataSource[] = [];

  const open = async () => {
    const dataSource = await openSchemaDataSource({
      url: database.url,
      schema: ISSUANCE_SCHEMA,
      entities: [CertificateAuthorityEntity],
      migrations: ISSUANCE_MIGRATIONS,
    });
    dataSources.push(dataSource);
    return dataSource;
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    for (const dataSource of dataSources) await dataSource.destroy();
    await database?.drop();
  });

  it('keeps the arc of a key whatever keys come with it, per tenant', async () => {
    const arcs = new CustomExtensionArcs(new SqlCustomExtensionArcStore((await open()).manager));
    const tenant = randomUUID();
    const first = await arcs.arcsFor(tenant, ['b']);
    const second = await arcs.arcsFor(tenant, ['a', 'b', 'c']);
    expect(second.get('b')).toBe(first.get('b'));
    expect(new Set(second.values()).size).toBe(3);
    // A fresh process (no memory) reads the same assignments.
    const again = await new CustomExtensionArcs(
      new SqlCustomExtensionArcStore((await open()).manager),
    ).arcsFor(tenant, ['c', 'b', 'a']);
    expect(Object.fromEntries(again)).toEqual(Object.fromEntries(second));
    // Another tenant starts at 1.
    expect(Object.fromEntries(await arcs.arcsFor(randomUUID(), ['z']))).toEqual({ z: 1 });
  });

  it('gives one arc per key and one key per arc when first uses race (two processes)', async () => {
    const tenant = randomUUID();
    const processes = [
      new CustomExtensionArcs(new SqlCustomExtensionArcStore((await open()).manager)),
      new CustomExtensionArcs(new SqlCustomExtensionArcStore((await open()).manager)),
    ];
    const keySets = Array.from({ length: 12 }, (_, i) => [`k${i % 5}`, `k${(i * 3) % 7}`, `shared`]);
    const results = await Promise.all(keySets.map((keys, i) => processes[i % 2].arcsFor(tenant, keys)));
    const byKey = new Map<string, number>();
    for (const result of results) {
      for (const [key, arc] of result) {
        if (byKey.has(key)) expect(arc).toBe(byKey.get(key));
        byKey.set(key, arc);
      }
    }
    expect(new Set(byKey.values()).size).toBe(byKey.size);
  });

  it('numbers the keys of existing certificates in the order they first appeared', async () => {
    const dataSource = await open();
    const tenant = randomUUID();
    const caId = await insertPlaceholderCa(dataSource, { tenantId: tenant });
    const insert = (serial: string, issuedAt: string, keys: string[]) =>
      dataSource.query(
        `INSERT INTO issuance.certificates (id, tenant_id, ca_id, serial_number, client_id, common_name,
           organization, organizational_unit, country, certificate_der, not_before, not_after, issued_at,
           custom_extensions)
         VALUES ($1, $2, $3, $4, 'c', 'cn', 'o', 'ou', 'US', '\\x30', now(), now(), $5, $6::jsonb)`,
        [
          randomUUID(),
          tenant,
          caId,
          serial,
          issuedAt,
          JSON.stringify(keys.map((key) => ({ key, value: 'v' }))),
        ],
      );
    await insert('0A', '2026-01-02T00:00:00Z', ['a', 'b']);
    await insert('0B', '2026-01-01T00:00:00Z', ['b', 'z']);
    const runner = dataSource.createQueryRunner();
    try {
      const migration = new CreateCustomExtensionArcs1764900000000();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const arcs = await new CustomExtensionArcs(new SqlCustomExtensionArcStore(dataSource.manager)).arcsFor(
      tenant,
      ['a', 'b', 'z'],
    );
    expect(Object.fromEntries(arcs)).toEqual({ b: 1, z: 2, a: 3 });
  });
});
