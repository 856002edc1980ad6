import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSealRecipient } from '@ca/custody';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { ACME_SCHEMA } from './acme.schema';
import { EabKeySealer } from './eab/eab-key-sealer';
import { EabKeys } from './eab/eab-keys';
import { acmeMigrations } from './migrations';
import { CreateAcmeSchema1766400000000 } from './migrations/1766400000000-create-acme-schema';
import { NonceStore, nonceKeyFromKek } from './protocol/nonce-store';
import { AccountStore } from './stores/account.store';
import { SqlEabKeyStore } from './stores/eab-key.store';
import { OrderStore } from './stores/order.store';
import { SharedSpentNonces } from './stores/spent-nonce.store';

jest.setTimeout(60_000);

const TENANT = '0b9d5c4e-5f4a-4d61-9a43-2f7b1c0e8a11';

describe.each(databaseKinds())('acme schema (%s database)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const sealer = new EabKeySealer(randomBytes(32));
  // Stands for a row written before EAB keys were sealed; the sealing migration must keep it usable.
  const legacy = { keyId: 'legacy-key', hmacKey: randomBytes(32) };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const before = await openSchemaDataSource({
      url: database.url,
      schema: ACME_SCHEMA,
      entities: [],
      migrations: [CreateAcmeSchema1766400000000],
    });
    await before.query('INSERT INTO acme.eab_keys (key_id, tenant_id, hmac_key) VALUES ($1, $2, $3)', [
      legacy.keyId,
      'tenant-legacy',
      legacy.hmacKey,
    ]);
    await before.destroy();
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: ACME_SCHEMA,
      entities: [],
      migrations: acmeMigrations(sealer),
    });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  const kek = randomBytes(32);
  const shared = (lifetimeMs?: number, now?: () => Date) =>
    new NonceStore(nonceKeyFromKek(kek), new SharedSpentNonces(dataSource), lifetimeMs, now);

  it('accepts each nonce once on any replica sharing the KEK, and refuses unknown, altered and expired ones', async () => {
    // Two replicas: each its own NonceStore, one KEK, one database.
    const [first, second] = [shared(), shared()];
    const nonce = await first.issue(TENANT);
    expect(await second.consume(TENANT, nonce)).toBe(true);
    expect(await first.consume(TENANT, nonce)).toBe(false);
    expect(await second.consume(TENANT, nonce)).toBe(false);
    expect(await first.consume(TENANT, 'never-issued')).toBe(false);
    expect(await first.consume(TENANT, "'; DROP TABLE acme.spent_nonces; --")).toBe(false);
    // Another KEK's nonce, and one with a bit of its id flipped: the HMAC does not match.
    const foreign = new NonceStore(nonceKeyFromKek(randomBytes(32)), new SharedSpentNonces(dataSource));
    expect(await first.consume(TENANT, await foreign.issue(TENANT))).toBe(false);
    const altered = Buffer.from(await first.issue(TENANT), 'base64url');
    altered[8] ^= 1;
    expect(await first.consume(TENANT, altered.toString('base64url'))).toBe(false);
    const shortLived = shared(1);
    const expired = await shortLived.issue(TENANT);
    await sleep(1_100);
    expect(await shortLived.consume(TENANT, expired)).toBe(false);
  });

  it('spent nonces are the only rows, and are pruned once they would have expired', async () => {
    let now = Date.UTC(2031, 0, 1);
    const nonces = shared(60_000, () => new Date(now));
    const rows = async () =>
      ((await dataSource.query('SELECT count(*)::int AS n FROM acme.spent_nonces')) as { n: number }[])[0].n;
    const before = await rows();
    const older = await nonces.issue(TENANT);
    const younger = await nonces.issue(TENANT);
    expect(await rows()).toBe(before);
    expect(await nonces.consume(TENANT, older)).toBe(true);
    now += 30_000;
    expect(await nonces.consume(TENANT, younger)).toBe(true);
    expect(await rows()).toBe(before + 2);
    now += 45_000; // both past 60 s
    expect(await nonces.prune()).toBeGreaterThanOrEqual(2);
    expect(await rows()).toBe(0);
    // Pruned after expiry: a replay is still refused, for its age.
    expect(await nonces.consume(TENANT, older)).toBe(false);
  });

  it("refuses another tenant's nonce and leaves it good for its own tenant", async () => {
    const nonces = shared();
    const nonce = await nonces.issue(TENANT);
    expect(await nonces.consume('5e0f3a2b-8c1d-4e7f-a6b5-9d8c7b6a5f40', nonce)).toBe(false);
    expect(await nonces.consume(TENANT, nonce)).toBe(true);
  });

  it('moves an order to ready only once every authorization is valid, and to invalid with a failed one', async () => {
    const store = new OrderStore(dataSource);
    const accountId = randomUUID();
    await dataSource.query(
      `INSERT INTO acme.accounts (id, tenant_id, jwk, thumbprint, status, eab_key_id)
       VALUES ($1, $2, '{}', $3, 'valid', 'k')`,
      [accountId, TENANT, `thumbprint-${accountId}`],
    );
    const http01Of = async (orderId: string, identifier: string) => {
      const order = (await store.findOrder(TENANT, orderId))!;
      for (const id of order.authorizationIds!) {
        const authorization = (await store.findAuthorization(TENANT, id))!;
        if (authorization.identifier === identifier)
          return { authorization, challenge: authorization.challenges.find((c) => c.type === 'http-01')! };
      }
      throw new Error(`no authorization for ${identifier}`);
    };

    const order = await store.createOrder(TENANT, accountId, ['a.example', 'b.example']);
    const first = await http01Of(order.id, 'a.example');
    await store.finishValidation(first.challenge, first.authorization);
    expect((await store.findOrder(TENANT, order.id))!.status).toBe('pending');
    const firstNow = await http01Of(order.id, 'a.example');
    expect([firstNow.authorization.status, firstNow.challenge.status]).toEqual(['valid', 'valid']);
    expect(firstNow.challenge.validatedAt).toBeInstanceOf(Date);
    const second = await http01Of(order.id, 'b.example');
    await store.finishValidation(second.challenge, second.authorization);
    expect((await store.findOrder(TENANT, order.id))!.status).toBe('ready');
    // A second outcome for an authorization already valid changes nothing.
    await store.finishValidation(second.challenge, second.authorization);
    expect((await store.findOrder(TENANT, order.id))!.status).toBe('ready');

    const failing = await store.createOrder(TENANT, accountId, ['c.example', 'd.example']);
    const c = await http01Of(failing.id, 'c.example');
    await store.finishValidation(c.challenge, c.authorization);
    const d = await http01Of(failing.id, 'd.example');
    const problem = { type: 'urn:ietf:params:acme:error:connection', detail: 'refused' };
    await store.finishValidation(d.challenge, d.authorization, problem);
    const failed = (await store.findOrder(TENANT, failing.id))!;
    expect([failed.status, failed.error]).toEqual(['invalid', problem]);
    const dNow = await http01Of(failing.id, 'd.example');
    expect([dNow.authorization.status, dNow.challenge.status, dNow.challenge.error]).toEqual([
      'invalid',
      'invalid',
      problem,
    ]);
    expect((await http01Of(failing.id, 'c.example')).authorization.status).toBe('valid');
  });

  it('prunes orders a day past their expiry with their authorizations, unless valid; keeps younger ones', async () => {
    const store = new OrderStore(dataSource);
    const now = new Date(Date.UTC(2031, 0, 10));
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
    const accountId = randomUUID();
    await dataSource.query(
      `INSERT INTO acme.accounts (id, tenant_id, jwk, thumbprint, status, eab_key_id)
       VALUES ($1, 'tenant-prune', '{}', $2, 'valid', 'k')`,
      [accountId, `thumbprint-${accountId}`],
    );
    const order = async (status: string, expiresAt: Date) => {
      const id = randomUUID();
      await dataSource.query(
        `INSERT INTO acme.orders (id, tenant_id, account_id, status, identifiers, expires_at)
         VALUES ($1, 'tenant-prune', $2, $3, '[]', $4)`,
        [id, accountId, status, expiresAt],
      );
      await dataSource.query(
        `INSERT INTO acme.authorizations (id, order_id, identifier, status, expires_at)
         VALUES ($1, $2, 'a.example', 'pending', $3)`,
        [randomUUID(), id, expiresAt],
      );
      return id;
    };
    const stale = await order('invalid', hoursAgo(25));
    const recent = await order('pending', hoursAgo(23));
    const valid = await order('valid', hoursAgo(100));
    await store.pruneExpiredOrders(now);
    const left: { id: string }[] = await dataSource.query(
      "SELECT id FROM acme.orders WHERE tenant_id = 'tenant-prune' ORDER BY expires_at",
    );
    expect(left.map((r) => r.id)).toEqual([valid, recent]);
    const authorizations: { order_id: string }[] = await dataSource.query(
      'SELECT order_id FROM acme.authorizations WHERE order_id = ANY($1)',
      [[stale, recent, valid]],
    );
    expect(authorizations.map((r) => r.order_id).sort()).toEqual([recent, valid].sort());
  });

  it('seals a new EAB key to the requester, binds it to one account only, and disables it', async () => {
    const eabKeys = new EabKeys(new SqlEabKeyStore(dataSource), sealer);
    const recipient = createSealRecipient();
    const created = await eabKeys.create('tenant-a', recipient.publicKey);
    const hmacKey = recipient.open(created.sealedHmacKey).toString('utf8');
    expect(Buffer.from(hmacKey, 'base64url')).toHaveLength(32);
    expect(JSON.stringify(created)).not.toContain(hmacKey);
    expect((await eabKeys.find(created.keyId))?.hmacKey?.toString('base64url')).toBe(hmacKey);
    expect(await eabKeys.list('tenant-b')).toEqual([]);

    const accounts = new AccountStore(dataSource);
    const account = { tenantId: 'tenant-a', jwk: { kty: 'EC' }, contact: [], eabKeyId: created.keyId };
    const first = await accounts.createBound({ ...account, thumbprint: 't1' });
    expect(first?.status).toBe('valid');
    expect(await accounts.createBound({ ...account, thumbprint: 't2' })).toBeUndefined();
    expect(await eabKeys.list('tenant-a')).toEqual([
      expect.objectContaining({ keyId: created.keyId, boundAccount: first!.id, disabled: false }),
    ]);

    const unused = await eabKeys.create('tenant-a', recipient.publicKey);
    await expect(eabKeys.disable('tenant-b', unused.keyId)).rejects.toThrow(/No such EAB key/);
    expect((await eabKeys.disable('tenant-a', unused.keyId)).disabled).toBe(true);
    expect(
      await accounts.createBound({ ...account, eabKeyId: unused.keyId, thumbprint: 't3' }),
    ).toBeUndefined();
  });

  it('as the only replica, reads an account once, and again after changing it (a deactivation refuses at once)', async () => {
    const eabKeys = new EabKeys(new SqlEabKeyStore(dataSource), sealer);
    const { keyId } = await eabKeys.create('tenant-a', createSealRecipient().publicKey);
    const accounts = new AccountStore(dataSource, { onlyReplica: true });
    const created = await accounts.createBound({
      tenantId: 'tenant-a',
      jwk: { kty: 'EC' },
      contact: ['mailto:a@example.test'],
      eabKeyId: keyId,
      thumbprint: `only-${keyId}`,
    });
    const queries = jest.spyOn(dataSource, 'query');
    try {
      const read = (await accounts.find('tenant-a', created!.id))!;
      read.contact.push('mailto:changed-in-memory@example.test'); // as a handler does before update()
      read.status = 'deactivated';
      expect(await accounts.find('tenant-a', created!.id)).toMatchObject({
        status: 'valid',
        contact: ['mailto:a@example.test'],
      });
      expect(queries).toHaveBeenCalledTimes(1);
      await accounts.update(read);
      expect(await accounts.find('tenant-a', created!.id)).toMatchObject({ status: 'deactivated' });
      expect(queries).toHaveBeenCalledTimes(3);
    } finally {
      queries.mockRestore();
    }
    expect(await accounts.find('tenant-b', created!.id)).toBeUndefined();
  });

  it('stores EAB keys only sealed: a key written in clear before is sealed, a moved row does not open', async () => {
    const unopenable: string[] = [];
    const eabKeys = new EabKeys(new SqlEabKeyStore(dataSource), sealer, (keyId) => unopenable.push(keyId));
    expect((await eabKeys.find(legacy.keyId))?.hmacKey?.equals(legacy.hmacKey)).toBe(true);
    const recipient = createSealRecipient();
    const created = await eabKeys.create('tenant-a', recipient.publicKey);
    const hmacKey = Buffer.from(recipient.open(created.sealedHmacKey).toString('utf8'), 'base64url');
    const rows = (await dataSource.query('SELECT * FROM acme.eab_keys')) as Record<string, unknown>[];
    for (const row of rows) {
      for (const value of Object.values(row)) {
        if (!Buffer.isBuffer(value)) continue;
        expect(value.includes(hmacKey)).toBe(false);
        expect(value.includes(legacy.hmacKey)).toBe(false);
      }
    }
    await dataSource.query("UPDATE acme.eab_keys SET tenant_id = 'tenant-b' WHERE key_id = $1", [
      created.keyId,
    ]);
    expect(await eabKeys.find(created.keyId)).toEqual(expect.objectContaining({ hmacKey: undefined }));
    expect(unopenable).toEqual([created.keyId]);
  });
});
