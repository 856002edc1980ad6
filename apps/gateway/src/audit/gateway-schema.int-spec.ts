import { randomUUID } from 'node:crypto';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { openGatewayDatabase } from '../gateway-database';
import { GatewayOperations } from '../operations/gateway-operations';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { TenantRepository } from '../tenants/tenant.repository';
import { AuditEntryInput } from './audit-chain';
import { AuditRepository } from './audit.repository';

/**
 * The gateway's schema on a real database (PGlite, and Postgres when DATABASE_URL is set): the
 * audit table refuses changes, appends from two gateways form one chain, pruning keeps it
 * verifiable, verification finds tampering, and two gateways share one rate-limit count.
 */
jest.setTimeout(60_000);

const DAY = 86_400_000;

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
  let audit: AuditRepository;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    first = await openGatewayDatabase(database.url, 4);
    second = await openGatewayDatabase(database.url, 4);
    audit = new AuditRepository(first);
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
    });
  });

  it('links entries from two gateways writing at once into one chain', async () => {
    const other = new AuditRepository(second);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? audit : other).append([entry(), entry()])),
    );
    const result = await audit.verify();
    expect(result).toMatchObject({ ok: true });
    const ids = [];
    for await (const e of audit.entries()) ids.push(e.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
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

    it('an edited entry, named by id', async () => {
      const [target] = await audit.append([entry({ result: 403, code: 'FORBIDDEN' })]);
      await audit.append([entry()]);
      await tamper(first, 'UPDATE gateway.audit_events SET result = 200, code = NULL WHERE id = $1', [
        target.id,
      ]);
      await expect(audit.verify()).resolves.toMatchObject({ ok: false, entryId: target.id });
      await tamper(first, "UPDATE gateway.audit_events SET result = 403, code = 'FORBIDDEN' WHERE id = $1", [
        target.id,
      ]);
    });

    it('a removed middle entry, named by id', async () => {
      const [, target] = await audit.append([entry(), entry(), entry()]);
      const [row] = await first.query('SELECT * FROM gateway.audit_events WHERE id = $1', [target.id]);
      await tamper(first, 'DELETE FROM gateway.audit_events WHERE id = $1', [target.id]);
      await expect(audit.verify()).resolves.toMatchObject({
        ok: false,
        entryId: target.id,
        problem: expect.stringMatching(/missing/),
      });
      const columns = Object.keys(row);
      await tamper(
        first,
        `INSERT INTO gateway.audit_events (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((c) => row[c]),
      );
    });

    it('a removed last entry, by the recorded head', async () => {
      const [target] = await audit.append([entry()]);
      const [row] = await first.query('SELECT * FROM gateway.audit_events WHERE id = $1', [target.id]);
      await tamper(first, 'DELETE FROM gateway.audit_events WHERE id = $1', [target.id]);
      await expect(audit.verify()).resolves.toMatchObject({ ok: false, entryId: target.id });
      const columns = Object.keys(row);
      await tamper(
        first,
        `INSERT INTO gateway.audit_events (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((c) => row[c]),
      );
    });
  });

  it('prunes past each tenant’s retention from the oldest end and stays verifiable', async () => {
    const tenants = new TenantRepository(first, { defaultCertificateLimit: 1000 });
    const longLived = randomUUID();
    await tenants.setAuditRetentionDays(longLived, 365);
    const before = await audit.chainState();
    const now = Date.now();
    // 40 days old: past the default 30 days; the long-lived tenant's entry holds back what follows it.
    const appended = await audit.append([
      entry({ occurredAt: new Date(now - 40 * DAY) }),
      entry({ occurredAt: new Date(now - 40 * DAY) }),
      entry({ tenantId: longLived, occurredAt: new Date(now - 40 * DAY) }),
      entry({ occurredAt: new Date(now - 40 * DAY) }),
      entry(),
    ]);
    // As of now the oldest entries (written by the tests above) are recent: nothing may go, although
    // entries further on are past retention.
    const deleted = await audit.prune(new Date(now));
    const after = await audit.chainState();
    expect(deleted).toBe(0);
    expect(after.anchorId).toBe(before.anchorId);

    // 31 days on, everything up to the long-lived tenant's entry is past retention; that entry
    // (kept 365 days) holds back the ones after it.
    const deletedLater = await audit.prune(new Date(now + 31 * DAY));
    const pruned = await audit.chainState();
    expect(pruned.anchorId).toBe(appended[2].id - 1);
    expect(deletedLater).toBe(appended[2].id - 1 - before.anchorId);
    const remaining = [];
    for await (const e of audit.entries()) remaining.push(e.id);
    expect(remaining[0]).toBe(appended[2].id);
    const result = await audit.verify();
    expect(result).toMatchObject({ ok: true, firstId: appended[2].id, lastId: appended[4].id });

    // Writing goes on from the head; verification still starts at the anchor.
    await audit.append([entry()]);
    await expect(audit.verify()).resolves.toMatchObject({ ok: true, firstId: appended[2].id });
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
    const a = new RateLimiter(first, 5, now);
    const b = new RateLimiter(second, 5, now);
    const decisions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).consume(tenantId)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.map((d) => Number(d.headers['RateLimit-Remaining'])).sort()).toEqual([
      0, 0, 0, 0, 1, 2, 3, 4,
    ]);
    // The next window starts again from one.
    const later = new RateLimiter(first, 5, () => now() + 60_000);
    await expect(later.consume(tenantId)).resolves.toMatchObject({ allowed: true });
    await later.removeOldWindows();
    await new RateLimiter(first, 5, () => now() + 4 * 60_000).removeOldWindows();
    const [{ n }] = await first.query(
      'SELECT count(*)::int AS n FROM gateway.rate_limit_windows WHERE tenant_id = $1',
      [tenantId],
    );
    expect(n).toBe(0);
  });
});
