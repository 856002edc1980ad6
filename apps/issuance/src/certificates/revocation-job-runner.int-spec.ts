import { randomBytes, randomUUID } from 'node:crypto';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from '../certificate-authority/certificate-authority.entity';
import { IssuanceTables, SqlIssuanceDatabase } from '../issuance-database.store';
import { ISSUANCE_SCHEMA } from '../issuance.schema';
import { ISSUANCE_MIGRATIONS } from '../migrations';
import { insertPlaceholderCa } from '../testing/placeholder-ca.store';
import { SqlCertificateStore } from './certificate.store';
import { CertificateEntity } from './certificate.entity';
import { MAX_FAILED_ROUNDS, RevocationJobRunner } from './revocation-job-runner';
import { RevokeCertificateHandler } from './revoke-certificate.handler';
import { RevokeMatchingHandler } from './revoke-matching.handler';

jest.setTimeout(180_000);

/** `count` active certificates of one tenant under `caId`, made directly in the table. */
async function insertTestCertificates(
  dataSource: DataSource,
  rows: {
    tenantId: string;
    caId: string;
    now: Date;
    count: number;
    clientId: (i: number) => string;
    commonName: (i: number) => string;
  },
): Promise<void> {
  const { tenantId, caId, now } = rows;
  await dataSource.transaction((manager) =>
    new SqlCertificateStore(manager).insert(
      Array.from({ length: rows.count }, (_, i) => ({
        id: randomUUID(),
        tenantId,
        caId,
        serialNumber: randomBytes(16).toString('hex'),
        clientId: rows.clientId(i),
        commonName: rows.commonName(i),
        organization: 'Acme',
        organizationalUnit: 'Ops',
        country: 'US',
        certificateDer: Buffer.of(0x30, 0x00),
        usage: 'Client',
        dnsNames: [],
        mustStaple: false,
        customExtensions: [],
        notBefore: now,
        notAfter: new Date(now.getTime() + 86_400_000),
        issuedAt: now,
        renewedFrom: null,
        issuedBy: 'tester',
        keyFromCsr: false,
        source: 'api',
      })),
    ),
  );
}

/** An operator's revoke-matching job over one client id's certificates; its id. */
async function startJob(
  handler: RevokeMatchingHandler,
  tenantId: string,
  clientId: string,
  expectedCount: number,
): Promise<string> {
  const started = await handler.execute({
    tenantId,
    principal: 'operator',
    request: { filter: { clientId }, reason: 'bulk', expectedCount },
  });
  return (started as { jobId: string }).jobId;
}

/** Polls the job every 50 ms until it is no longer running; after `maxPolls`, fails with `failure`. */
async function untilJobEnds(
  handler: RevokeMatchingHandler,
  tenantId: string,
  jobId: string,
  maxPolls: number,
  failure: string,
): Promise<void> {
  for (let i = 0; (await handler.job({ tenantId, jobId })).status === 'running'; i++) {
    if (i > maxPolls) throw new Error(failure);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A revoke-matching job that stops mid-way (the process dies inside a revocation's transaction)
 * and is resumed by another runner (the restarted process): every chosen certificate ends revoked
 * once, with one certificate.revoked event each, none skipped, none twice.
 */
describe.each(databaseKinds())('revocation job runner (%s)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let issuance: SqlIssuanceDatabase;
  const tenantId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: ISSUANCE_SCHEMA,
      entities: [CertificateAuthorityEntity, CertificateEntity],
      migrations: ISSUANCE_MIGRATIONS,
    });
    issuance = new SqlIssuanceDatabase(dataSource);
    const now = new Date();
    const caId = await insertPlaceholderCa(dataSource, { tenantId });
    await insertTestCertificates(dataSource, {
      tenantId,
      caId,
      now,
      count: 30,
      clientId: (i) => (i < 25 ? 'bulk' : 'kept'),
      commonName: (i) => `cn-${i}`,
    });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('resumes after a crash: each match revoked exactly once, nothing else touched', async () => {
    const handler = new RevokeMatchingHandler(issuance, () => undefined);
    const jobId = await startJob(handler, tenantId, 'bulk', 25);

    // The first process revokes in batches of ten and dies inside the transaction of the batch
    // that holds its eleventh revocation: nothing after that death is done.
    let revocations = 0;
    let dead = false;
    const dying = new (class extends RevokeCertificateHandler {
      override executeBatch(...args: Parameters<RevokeCertificateHandler['executeBatch']>) {
        const [command, inTransaction] = args;
        return super.executeBatch(command, async (tables: IssuanceTables, outcome) => {
          revocations += outcome.revoked.length;
          if (dead || revocations >= 11) {
            dead = true;
            throw new Error('process killed');
          }
          await inTransaction(tables, outcome);
        });
      }
    })(issuance, () => undefined);
    const first = new RevocationJobRunner(issuance, dying, 10);
    await expect(first.run(jobId)).rejects.toThrow('process killed');
    // Stopped part-way: the revocations under way beside the one that died may have finished.
    const stopped = await handler.job({ tenantId, jobId });
    expect(stopped).toMatchObject({ status: 'running', failed: 0 });
    expect(stopped.done).toBeGreaterThanOrEqual(10);
    expect(stopped.done).toBeLessThan(25);
    // Its lease is never handed back: the next process takes the job once the lease has run out.
    await dataSource.query("UPDATE issuance.revocation_jobs SET lease_until = now() - interval '1 second'");

    // The restarted process resumes every running job on start.
    const second = new RevocationJobRunner(issuance, new RevokeCertificateHandler(issuance, () => undefined));
    await second.start();
    try {
      await untilJobEnds(handler, tenantId, jobId, 600, 'the job was not resumed');
    } finally {
      await second.stop();
    }

    expect(await handler.job({ tenantId, jobId })).toEqual({
      jobId,
      kind: 'revoke-matching',
      status: 'done',
      total: 25,
      done: 25,
      failed: 0,
    });
    const rows: { client_id: string; revoked: boolean; events: string }[] = await dataSource.query(
      `SELECT c.client_id, c.revoked_at IS NOT NULL AS revoked,
              (SELECT count(*) FROM issuance.outbox o
                WHERE o.type = 'certificate.revoked' AND o.payload->>'certificateId' = c.id::text) AS events
         FROM issuance.certificates c WHERE c.tenant_id = $1`,
      [tenantId],
    );
    for (const row of rows) {
      expect(row).toEqual(
        row.client_id === 'bulk'
          ? { client_id: 'bulk', revoked: true, events: '1' }
          : { client_id: 'kept', revoked: false, events: '0' },
      );
    }
  });

  it('fails the job, with the reason, when a certificate cannot be revoked round after round; revokes the others', async () => {
    const handler = new RevokeMatchingHandler(issuance, () => undefined);
    const jobId = await startJob(handler, tenantId, 'kept', 5);
    const [{ certificate_id: doomed }]: { certificate_id: string }[] = await dataSource.query(
      'SELECT certificate_id FROM issuance.revocation_job_items WHERE job_id = $1 ORDER BY certificate_id LIMIT 1',
      [jobId],
    );
    const failing = new (class extends RevokeCertificateHandler {
      override executeBatch(...args: Parameters<RevokeCertificateHandler['executeBatch']>) {
        if (args[0].certificateIds.includes(doomed)) return Promise.reject(new Error('the disk is on fire'));
        return super.executeBatch(...args);
      }
    })(issuance, () => undefined);
    const runner = new RevocationJobRunner(issuance, failing);
    await runner.start();
    try {
      await untilJobEnds(handler, tenantId, jobId, 800, 'the job never ended');
    } finally {
      await runner.stop();
    }
    const job = await handler.job({ tenantId, jobId });
    expect(job).toEqual({
      jobId,
      kind: 'revoke-matching',
      status: 'failed',
      total: 5,
      done: 4,
      failed: 0,
      error: expect.stringContaining(
        `revoking certificate ${doomed} failed ${MAX_FAILED_ROUNDS} times in a row`,
      ),
    });
    // What went wrong inside stays in the log; the caller is told where, not the internals.
    expect(job.error).not.toContain('disk');
    const [{ pending }]: { pending: string }[] = await dataSource.query(
      "SELECT count(*) AS pending FROM issuance.revocation_job_items WHERE job_id = $1 AND state = 'pending'",
      [jobId],
    );
    expect(pending).toBe('1');
  });

  it('revokes a batch in one transaction, one event each; one revoked meanwhile by another call is counted failed', async () => {
    // A tenant of its own, so the other cases' certificates are left as they are.
    const racedTenant = randomUUID();
    const [{ id: caId }]: { id: string }[] = await dataSource.query(
      'SELECT id FROM issuance.certificate_authorities LIMIT 1',
    );
    const now = new Date();
    await insertTestCertificates(dataSource, {
      tenantId: racedTenant,
      caId,
      now,
      count: 7,
      clientId: () => 'raced',
      commonName: (i) => `raced-${i}`,
    });
    const handler = new RevokeMatchingHandler(issuance, () => undefined);
    const jobId = await startJob(handler, racedTenant, 'raced', 7);
    const [{ certificate_id: raced }]: { certificate_id: string }[] = await dataSource.query(
      'SELECT certificate_id FROM issuance.revocation_job_items WHERE job_id = $1 ORDER BY certificate_id DESC LIMIT 1',
      [jobId],
    );
    const single = new RevokeCertificateHandler(issuance, () => undefined);
    await single.execute({
      tenantId: racedTenant,
      principal: 'someone',
      certificateId: raced,
      request: { reason: 'first', reasonCode: 'Superseded' },
    });

    await new RevocationJobRunner(issuance, single).run(jobId);

    expect(await handler.job({ tenantId: racedTenant, jobId })).toEqual({
      jobId,
      kind: 'revoke-matching',
      status: 'done',
      total: 7,
      done: 6,
      failed: 1,
    });
    const rows: { id: string; reason: string; revoked_by: string; events: string; state: string }[] =
      await dataSource.query(
        `SELECT c.id, c.revocation_reason AS reason, c.revoked_by, i.state,
                (SELECT count(*) FROM issuance.outbox o
                  WHERE o.type = 'certificate.revoked' AND o.payload->>'certificateId' = c.id::text) AS events
           FROM issuance.certificates c JOIN issuance.revocation_job_items i ON i.certificate_id = c.id
          WHERE i.job_id = $1`,
        [jobId],
      );
    expect(rows).toHaveLength(7);
    for (const row of rows) {
      expect(row).toEqual(
        row.id === raced
          ? { id: raced, reason: 'first', revoked_by: 'someone', events: '1', state: 'skipped' }
          : { id: row.id, reason: 'bulk', revoked_by: 'operator', events: '1', state: 'revoked' },
      );
    }
    // The job's six revocations came in one transaction (the gateway audits them in its order).
    const [{ transactions }]: { transactions: string }[] = await dataSource.query(
      `SELECT count(DISTINCT revoked_in) AS transactions FROM issuance.revocation_job_items
        WHERE job_id = $1 AND state = 'revoked'`,
      [jobId],
    );
    expect(transactions).toBe('1');
  });
});
