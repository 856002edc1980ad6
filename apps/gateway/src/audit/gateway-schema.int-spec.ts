import { randomUUID } from 'node:crypto';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { SqlRateLimitWindowStore, openSchemaDataSource } from '@ca/persistence';
import { DataSource } from 'typeorm';
import { openGatewayDatabase } from '../gateway-database';
import { GATEWAY_SCHEMA } from '../gateway.schema';
import { GATEWAY_MIGRATIONS } from '../migrations';
import { AuditChainPerTenant1766400000000 } from '../migrations/1766400000000-audit-chain-per-tenant';
import { DownloadStore } from '../downloads/download.store';
import { GatewayOperations } from '../operations/gateway-operations';
import { GATEWAY_RATE_LIMIT_WINDOWS, RateLimiter } from '../rate-limit/rate-limiter';
import { TenantStore } from '../tenants/tenant.store';
import { AuditEntryInput, sealAuditEntries } from './audit-chain';
import { AuditStore } from './audit.store';

/**
 * The gateway's schema on a real database (PGlite, and Postgres when DATABASE_URL is set): the
 * audit table refuses changes, appends from two gateways form one chain per tenant, pruning keeps
 * every chain verifiable, verification finds tampering (also in entries written before the chains
 * were split per tenant), and two gateways share one rate-limit count.
 */
jest.setTimeout(60_000);

const DAY = 86_400_000;

/** A gateway replica's rate-limit windows on its pool. */
const windowsOn = (pool: DataSource) => new SqlRateLimitWindowStore(pool, GATEWAY_RATE_LIMIT_WINDOWS);

function entry(overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    occurredAt: new Date(),
    tenantId: randomUUID(),
    principal: 'schema-test',
    action: 'certificate.list',
    resource: '/v1/certificates',
    result: 200,
    code: null,
    requestId: randomUUID(),
    ...overrides,
  };
}

/** As a database superuser would: with the append-only trigger switched off for one statement. */
async function tamper(dataSource: DataSource, sql: string, params: unknown[] = []): Promise<void> {
  await dataSource.transaction(async (manager) => {
    await manager.query('ALTER TABLE gateway.audit_events DISABLE TRIGGER USER');
    await manager.query(sql, params);
    await manager.query('ALTER TABLE gateway.audit_events ENABLE TRIGGER USER');
  });
}

describe.each(databaseKinds())('gateway schema (%s)', (kind) => {
  let database: TestDatabase;
  let first: DataSource;
  let second: DataSource;
  let audit: AuditStore;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    first = await openGatewayDatabase(database.url, 4);
    second = await openGatewayDatabase(database.url, 4);
    audit = new AuditStore(first);
  });

  afterAll(async () => {
    await first?.destroy();
    await second?.destroy();
    await database?.drop();
  });

  describe('audit_events is append-only', () => {
    beforeAll(async () => {
      await audit.append([entry(), entry()]);
    });

    it.each([
      ['UPDATE', 'UPDATE gateway.audit_events SET result = 500 WHERE id = 1'],
      ['DELETE', 'DELETE FROM gateway.audit_events WHERE id = 1'],
      ['TRUNCATE', 'TRUNCATE gateway.audit_events'],
    ])('refuses %s', async (_op, sql) => {
      await expect(first.query(sql)).rejects.toThrow(/append-only/);
      await expect(audit.verify()).resolves.toMatchObject({ ok: true });
    });

    it('keeps the chain head moving forward only, and the anchor moving only by pruning', async () => {
      await expect(
        first.query('UPDATE gateway.audit_chain SET head_id = head_id - 1 WHERE id = 1'),
      ).rejects.toThrow(/only moves forward/);
      await expect(first.query('DELETE FROM gateway.audit_chain')).rejects.toThrow(/refused/);
      await expect(first.query('UPDATE gateway.audit_chain SET anchor_id = 1 WHERE id = 1')).rejects.toThrow(
        /anchor/,
      );
      await expect(first.query('UPDATE gateway.audit_chains SET head_id = head_id - 1')).rejects.toThrow(
        /only moves forward/,
      );
      await expect(first.query('DELETE FROM gateway.audit_chains')).rejects.toThrow(/refused/);
      await expect(first.query('UPDATE gateway.audit_chains SET anchor_id = 1')).rejects.toThrow(/anchor/);
    });
  });

  it('links entries from two gateways writing at once into one chain per tenant', async () => {
    const other = new AuditStore(second);
    const tenants = [randomUUID(), randomUUID(), null];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? audit : other).append([
          entry({ tenantId: tenants[i % 3] }),
          entry({ tenantId: tenants[(i + 1) % 3] }),
        ]),
      ),
    );
    await expect(audit.verify()).resolves.toMatchObject({ ok: true });
    const ids = [];
    for await (const e of audit.entries()) ids.push(e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const tenantId of tenants.slice(0, 2) as string[]) {
      const positions = [];
      for await (const e of audit.entries({ tenantId })) positions.push(e.chainSeq);
      expect(positions).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    }
  });

  it('appends in one statement to a chain whose last entry it wrote, and under the lock after another gateway', async () => {
    const tenantId = randomUUID();
    const [one, other] = [new AuditStore(first), new AuditStore(second)];
    await one.append([entry({ tenantId })]); // the chain is new to it: locked
    const queries = jest.spyOn(first, 'query');
    const transactions = jest.spyOn(first, 'transaction');
    try {
      await one.append([entry({ tenantId }), entry({ tenantId })]);
      await one.append([entry({ tenantId })]); // the block of ids is taken: one statement alone
      expect(transactions).not.toHaveBeenCalled();
      expect(queries.mock.calls.length).toBeLessThanOrEqual(3);
      await other.append([entry({ tenantId })]);
      // Its head is no longer the one it wrote: the guard refuses, and the lock takes it.
      await one.append([entry({ tenantId })]);
      expect(transactions).toHaveBeenCalledTimes(1);
    } finally {
      queries.mockRestore();
      transactions.mockRestore();
    }
    await one.append([entry({ tenantId })]);
    await expect(audit.verify()).resolves.toMatchObject({ ok: true });
    const positions = [];
    for await (const e of audit.entries({ tenantId })) positions.push(e.chainSeq);
    expect(positions).toEqual([1, 2, 3, 4, 5, 6, 7]); // in id order: ids grow with positions
  });

  it('appends under the lock again after a transaction with its entry rolled back', async () => {
    const tenantId = randomUUID();
    await audit.append([entry({ tenantId })]);
    await first
      .transaction(async (manager) => {
        await audit.appendIn(manager, [entry({ tenantId })]);
        throw new Error('the command failed after its audit entry');
      })
      .catch(() => undefined);
    const [written] = await audit.append([entry({ tenantId })]);
    expect(written.chainSeq).toBe(2);
    await expect(audit.verify()).resolves.toMatchObject({ ok: true });
  });

  // Two sessions at once: PGlite has one, so only on Postgres.
  (kind === 'postgres' ? it : it.skip)(
    'locks chains in order while a chain this gateway made is not committed yet',
    async () => {
      const [made, other] = [randomUUID(), randomUUID()];
      await audit.append([entry({ tenantId: other })]);
      const open = first.createQueryRunner();
      await open.connect();
      await open.startTransaction();
      try {
        // An append that makes a chain and stays open; a second append of this gateway for both.
        await audit.appendIn(open.manager, [entry({ tenantId: made })]);
        const both = audit.append([entry({ tenantId: made }), entry({ tenantId: other })]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        // The open one now wants the other chain: had the second locked it before waiting for
        // the made chain's row, Postgres would end one of them as a deadlock.
        await audit.appendIn(open.manager, [entry({ tenantId: other })]);
        await open.commitTransaction();
        await expect(both).resolves.toHaveLength(2);
      } finally {
        if (open.isTransactionActive) await open.rollbackTransaction();
        await open.release();
      }
      await expect(audit.verify()).resolves.toMatchObject({ ok: true });
    },
  );

  it('starts a tenant’s chain again after the transaction that first wrote to it rolled back', async () => {
    const tenantId = randomUUID();
    await expect(
      first.transaction(async (manager) => {
        await audit.appendIn(manager, [entry({ tenantId })]);
        throw new Error('the command failed after its audit entry');
      }),
    ).rejects.toThrow('the command failed');
    const [written] = await audit.append([entry({ tenantId })]);
    expect(written.chainSeq).toBe(1);
    await expect(audit.verify()).resolves.toMatchObject({ ok: true });
  });
  it('exports one tenant, from a time on', async () => {
    const tenantId = randomUUID();
    const old = new Date(Date.now() - 10 * DAY);
    await audit.append([entry({ tenantId, occurredAt: old }), entry({ tenantId }), entry()]);
    const all = [];
    for await (const e of audit.entries({ tenantId })) all.push(e);
    expect(all).toHaveLength(2);
    const recent = [];
    for await (const e of audit.entries({ tenantId, since: new Date(Date.now() - DAY) })) recent.push(e);
    expect(recent).toHaveLength(1);
  });

  describe('verification finds tampering', () => {
    afterEach(async () => {
      // Each case repairs what it broke, so the next starts from an intact chain.
      await expect(audit.verify()).resolves.toMatchObject({ ok: true });
    });

    const tenantId = randomUUID();

    it('an edited entry, named by id', async () => {
      const [target] = await audit.append([entry({ tenantId, result: 403, code: 'FORBIDDEN' })]);
      await audit.append([entry({ tenantId })]);
      await tamper(first, 'UPDATE gateway.audit_events SET result = 200, code = NULL WHERE id = $1', [
        target.id,
      ]);
      await expect(audit.verify()).resolves.toMatchObject({ ok: false, entryId: target.id });
      await tamper(first, "UPDATE gateway.audit_events SET result = 403, code = 'FORBIDDEN' WHERE id = $1", [
        target.id,
      ]);
    });

    it('a removed middle entry, named by the last intact one and its position', async () => {
      const [before, target] = await audit.append([
        entry({ tenantId }),
        entry({ tenantId }),
        entry({ tenantId }),
      ]);
      const [row] = await first.query('SELECT * FROM gateway.audit_events WHERE id = $1', [target.id]);
      await tamper(first, 'DELETE FROM gateway.audit_events WHERE id = $1', [target.id]);
      await expect(audit.verify()).resolves.toMatchObject({
        ok: false,
        entryId: before.id,
        problem: `chain of tenant ${tenantId}: entry ${target.chainSeq} is missing (removed); the log continues at ${target.chainSeq! + 1}`,
      });
      const columns = Object.keys(row);
      await tamper(
        first,
        `INSERT INTO gateway.audit_events (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((c) => row[c]),
      );
    });

    it('two entries swapped within a chain', async () => {
      const [a, b] = await audit.append([entry({ tenantId, result: 201 }), entry({ tenantId, result: 204 })]);
      await tamper(first, 'UPDATE gateway.audit_events SET chain_seq = -chain_seq WHERE id IN ($1, $2)', [
        a.id,
        b.id,
      ]);
      await tamper(first, 'UPDATE gateway.audit_events SET chain_seq = $2 WHERE id = $1', [a.id, b.chainSeq]);
      await tamper(first, 'UPDATE gateway.audit_events SET chain_seq = $2 WHERE id = $1', [b.id, a.chainSeq]);
      await expect(audit.verify()).resolves.toMatchObject({ ok: false, entryId: b.id });
      await tamper(first, 'UPDATE gateway.audit_events SET chain_seq = -chain_seq WHERE id IN ($1, $2)', [
        a.id,
        b.id,
      ]);
      await tamper(first, 'UPDATE gateway.audit_events SET chain_seq = $2 WHERE id = $1', [a.id, a.chainSeq]);
      await tamper(first, 'UPDATE gateway.audit_events SET chain_seq = $2 WHERE id = $1', [b.id, b.chainSeq]);
    });

    it('an entry moved into another tenant’s chain', async () => {
      const [target] = await audit.append([entry()]);
      // Appended after the tenant's last entry, as if it had been written there.
      const [{ head }] = await first.query(
        'SELECT head_id AS head FROM gateway.audit_chains WHERE chain_key = $1',
        [tenantId],
      );
      const move = 'UPDATE gateway.audit_events SET tenant_id = $2, chain_seq = $3 WHERE id = $1';
      await tamper(first, move, [target.id, tenantId, Number(head) + 1]);
      await expect(audit.verify()).resolves.toMatchObject({ ok: false });
      await tamper(first, move, [target.id, target.tenantId, target.chainSeq]);
    });

    it('a removed last entry, by the recorded head', async () => {
      const [before, target] = await audit.append([entry({ tenantId }), entry({ tenantId })]);
      const [row] = await first.query('SELECT * FROM gateway.audit_events WHERE id = $1', [target.id]);
      await tamper(first, 'DELETE FROM gateway.audit_events WHERE id = $1', [target.id]);
      await expect(audit.verify()).resolves.toMatchObject({
        ok: false,
        entryId: before.id,
        problem: expect.stringMatching(/the last one written, is missing/),
      });
      const columns = Object.keys(row);
      await tamper(
        first,
        `INSERT INTO gateway.audit_events (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((c) => row[c]),
      );
    });
  });

  it('prunes each chain past its tenant’s retention from the oldest end and stays verifiable', async () => {
    const tenants = new TenantStore(first, { defaultCertificateLimit: 1000 });
    const [shortLived, longLived] = [randomUUID(), randomUUID()];
    await tenants.setAuditRetentionDays(longLived, 365);
    const now = Date.now();
    const old = new Date(now - 40 * DAY);
    const appended = await audit.append([
      entry({ tenantId: shortLived, occurredAt: old }),
      entry({ tenantId: longLived, occurredAt: old }),
      entry({ tenantId: shortLived, occurredAt: old }),
      entry({ tenantId: shortLived }),
      entry({ tenantId: longLived }),
    ]);
    const chainOf = async (tenantId: string) => {
      const ids = [];
      for await (const e of audit.entries({ tenantId })) ids.push(e.id);
      return ids;
    };
    await audit.prune(new Date(now));
    // 40 days old is past the default 30 days, not past the long-lived tenant's 365.
    expect(await chainOf(shortLived)).toEqual([appended[3].id]);
    expect(await chainOf(longLived)).toEqual([appended[1].id, appended[4].id]);
    await expect(audit.verify()).resolves.toMatchObject({ ok: true });

    // Writing goes on from each head; verification starts at each chain's anchor.
    await audit.append([entry({ tenantId: shortLived })]);
    await expect(audit.verify()).resolves.toMatchObject({ ok: true });
    const [anchor] = await first.query('SELECT anchor_id FROM gateway.audit_chains WHERE chain_key = $1', [
      shortLived,
    ]);
    expect(Number(anchor.anchor_id)).toBe(2);
  });

  it('still verifies, and finds tampering in, the entries written before the chains were split', async () => {
    const legacyDatabase = await createTestDatabase(kind);
    try {
      const before = await openSchemaDataSource({
        url: legacyDatabase.url,
        schema: GATEWAY_SCHEMA,
        entities: [],
        // Every migration before the one that split the chain per tenant.
        migrations: GATEWAY_MIGRATIONS.slice(0, GATEWAY_MIGRATIONS.indexOf(AuditChainPerTenant1766400000000)),
      });
      // Written as the gateway wrote them: one chain over every tenant, numbered by id.
      const legacy = sealAuditEntries({ id: 0, hash: '0'.repeat(64) }, [
        entry(),
        entry({ tenantId: null }),
        entry(),
      ]);
      for (const e of legacy) {
        await before.query(
          `INSERT INTO gateway.audit_events (id, occurred_at, tenant_id, principal, action, resource, result, code, request_id, prev_hash, hash)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            e.id,
            e.occurredAt,
            e.tenantId,
            e.principal,
            e.action,
            e.resource,
            e.result,
            e.code,
            e.requestId,
            e.prevHash,
            e.hash,
          ],
        );
      }
      await before.query('UPDATE gateway.audit_chain SET head_id = 3, head_hash = $1 WHERE id = 1', [
        legacy[2].hash,
      ]);
      await before.destroy();

      const after = await openGatewayDatabase(legacyDatabase.url, 2);
      try {
        const repository = new AuditStore(after);
        const [next] = await repository.append([entry({ tenantId: legacy[0].tenantId })]);
        expect(next).toMatchObject({ id: 4, chainSeq: 1 });
        await expect(repository.verify()).resolves.toMatchObject({
          ok: true,
          entries: 4,
          firstId: 1,
          lastId: 4,
        });
        await tamper(after, 'UPDATE gateway.audit_events SET result = 500 WHERE id = 2');
        await expect(repository.verify()).resolves.toMatchObject({ ok: false, entryId: 2 });
        await tamper(after, 'UPDATE gateway.audit_events SET result = 200 WHERE id = 2');
        await tamper(after, 'DELETE FROM gateway.audit_events WHERE id = 3');
        await expect(repository.verify()).resolves.toMatchObject({ ok: false, entryId: 3 });
      } finally {
        await after.destroy();
      }
    } finally {
      await legacyDatabase.drop();
    }
  });

  it('runs the operator commands on the schema', async () => {
    const operations = new GatewayOperations(first, { defaultCertificateLimit: 1000 });
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) };
    const tenantId = randomUUID();
    expect(await operations.run({ kind: 'tenant.show', tenantId }, io)).toBe(1);
    expect(await operations.run({ kind: 'tenant.suspend', tenantId }, io)).toBe(0);
    expect(await operations.run({ kind: 'tenant.set-limit', tenantId, limit: 2 }, io)).toBe(0);
    expect(await operations.run({ kind: 'tenant.show', tenantId }, io)).toBe(0);
    expect(JSON.parse(out[out.length - 1])).toMatchObject({
      tenantId,
      status: 'suspended',
      certificateLimit: 2,
      auditRetentionDays: 30,
    });
    expect(await operations.run({ kind: 'audit.verify' }, io)).toBe(0);
    expect(out[out.length - 1]).toMatch(/^audit verify: OK, \d+ entries/);
  });

  it('counts one rate-limit window for two gateways', async () => {
    const tenantId = randomUUID();
    const now = () => Date.UTC(2030, 0, 1, 0, 0, 30);
    const a = new RateLimiter(windowsOn(first), 5, now);
    const b = new RateLimiter(windowsOn(second), 5, now);
    const decisions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).consume(tenantId)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.map((d) => Number(d.headers['RateLimit-Remaining'])).sort()).toEqual([
      0, 0, 0, 0, 1, 2, 3, 4,
    ]);
    // The next window starts again from one.
    const later = new RateLimiter(windowsOn(first), 5, () => now() + 60_000);
    await expect(later.consume(tenantId)).resolves.toMatchObject({ allowed: true });
    await later.removeOldWindows();
    await new RateLimiter(windowsOn(first), 5, () => now() + 4 * 60_000).removeOldWindows();
    const [{ n }] = await first.query(
      'SELECT count(*)::int AS n FROM gateway.rate_limit_windows WHERE tenant_id = $1',
      [tenantId],
    );
    expect(n).toBe(0);
  });

  it('removes rate-limit windows two minutes past and keeps the current and the previous one', async () => {
    const tenantId = randomUUID();
    const start = Date.UTC(2031, 0, 1, 0, 0, 10);
    let now = start;
    const limiter = new RateLimiter(windowsOn(first), 100, () => now);
    await limiter.consume(tenantId); // window 00:00
    now = start + 2 * 60_000;
    await limiter.consume(tenantId); // window 00:02
    now = start + 3 * 60_000;
    await limiter.consume(tenantId); // window 00:03
    await limiter.removeOldWindows();
    const rows: { window_start: Date }[] = await first.query(
      'SELECT window_start FROM gateway.rate_limit_windows WHERE tenant_id = $1 ORDER BY window_start',
      [tenantId],
    );
    expect(rows.map((r) => new Date(r.window_start).toISOString())).toEqual([
      '2031-01-01T00:02:00.000Z',
      '2031-01-01T00:03:00.000Z',
    ]);
  });

  it('erases download payloads whose link has expired and keeps those still valid', async () => {
    const downloads = new DownloadStore(first);
    const now = new Date(Date.UTC(2031, 0, 1));
    const row = (expiresAt: Date) => ({
      lookupHash: Buffer.from(randomUUID().replace(/-/g, '').repeat(2), 'hex'),
      kind: 'certificate' as const,
      singleUse: false,
      fileName: 'c.pem',
      iv: Buffer.alloc(12),
      sealed: Buffer.from('sealed'),
      expiresAt,
    });
    const expired = row(new Date(now.getTime() - 1000));
    const valid = row(new Date(now.getTime() + 1000));
    await downloads.insert([expired, valid]);
    expect(await downloads.removeExpired(now)).toBeGreaterThanOrEqual(1);
    const left: { lookup_hash: Buffer }[] = await first.query(
      'SELECT lookup_hash FROM gateway.downloads WHERE lookup_hash = ANY($1)',
      [[expired.lookupHash, valid.lookupHash]],
    );
    expect(left.map((r) => Buffer.from(r.lookup_hash).toString('hex'))).toEqual([
      valid.lookupHash.toString('hex'),
    ]);
  });
});
