import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import {
  SystemUnderTest,
  TestTenant,
  createTenant,
  eventuallyCrl,
  eventuallyRevokedInOcsp,
  issueBody,
  ocspStatus,
  startSystemUnderTest,
} from '@ca/system/testing';

/**
 * The backup and restore of docs/operations.md ("Backup and restore"), run as written: `pg_dump` of
 * the schemas it lists, `psql` into a fresh database, the system started on it with the same KEK.
 * What a user had must all be there: the tenant's limits, its certificates, the revocation in OCSP
 * and in the CRL, an audit chain that verifies, and a CA key that still signs.
 */
const APP_ROOT = resolve(__dirname, '../../..');
const BACKUP_SCHEMAS = ['gateway', 'issuance', 'revocation', 'ocsp', 'acme'];
const real = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);
if (!real) console.warn('backup and restore: DATABASE_URL/NATS_URL not set, skipped');

/** Runs a program without blocking the event loop (the system under test serves from this process). */
function run(program: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(program, args, { cwd: APP_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

async function mustRun(program: string, args: string[]): Promise<void> {
  const result = await run(program, args);
  if (result.status !== 0) throw new Error(`${program} failed (${result.status}): ${result.stderr}`);
}

/** `npm run ops -- …` against a database, as an operator runs it. */
function ops(databaseUrl: string, ...args: string[]): Promise<Ran> {
  const { NODE_OPTIONS: _jestFlags, ...env } = process.env;
  return run(process.execPath, ['-r', '@swc-node/register', 'tools/ops.ts', ...args], {
    ...env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
  });
}

async function onServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

(real ? describe : describe.skip)('backup and restore (docs/operations.md) on real Postgres', () => {
  const kek = randomBytes(32).toString('base64');
  const restoredName = `ca_restore_${randomBytes(6).toString('hex')}`;
  const dumpDir = mkdtempSync(join(tmpdir(), 'ca-backup-'));
  let original: SystemUnderTest | undefined;
  let restored: SystemUnderTest | undefined;

  afterAll(async () => {
    await restored?.stop();
    await original?.stop();
    await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${restoredName} WITH (FORCE)`));
    rmSync(dumpDir, { recursive: true, force: true });
  }, 60_000);

  it('brings back tenants, certificates, revocations, CRL and audit chain, and the CA still signs', async () => {
    original = await startSystemUnderTest('postgres+nats', { env: { CA_KEK: kek } });
    const tenant: TestTenant = await createTenant(original);
    const kept = await tenant.issue(issueBody({ commonName: 'kept' }));
    const revoked = await tenant.issue(issueBody({ commonName: 'revoked' }));
    expect(
      (await tenant.post(`/v1/certificates/${revoked.certificateId}/revoke`, { reason: 'keyCompromise' }))
        .status,
    ).toBe(200);
    expect((await ops(original.databaseUrl, 'tenant', 'set-limit', tenant.tenantId, '7')).status).toBe(0);
    // Every projection has caught up before the dump (docs: drain consumers before a planned backup).
    await eventuallyRevokedInOcsp(original.pkiUrl, tenant.tenantId, tenant.caDer, revoked.serialNumber);
    await eventuallyCrl(original.pkiUrl, tenant.tenantId, (crl) =>
      crl.entries.some((e) => e.serialNumberHex === revoked.serialNumber),
    );

    const dump = join(dumpDir, 'backup.sql');
    await mustRun('pg_dump', [...BACKUP_SCHEMAS.flatMap((s) => ['-n', s]), '-f', dump, original.databaseUrl]);
    await original.stop();
    original = undefined;
    await onServer((client) => client.query(`CREATE DATABASE ${restoredName}`));
    const restoredUrl = new URL(process.env.DATABASE_URL!);
    restoredUrl.pathname = `/${restoredName}`;
    // A dump of the schemas holds no extension: the new database gets pg_trgm and btree_gin
    // first, as documented.
    await mustRun('psql', [
      '-v',
      'ON_ERROR_STOP=1',
      '-q',
      '-c',
      'CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public',
      '-c',
      'CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public',
      restoredUrl.toString(),
    ]);
    await mustRun('psql', ['-v', 'ON_ERROR_STOP=1', '-q', '-f', dump, restoredUrl.toString()]);

    restored = await startSystemUnderTest('postgres+nats', {
      env: { CA_KEK: kek, DATABASE_URL: restoredUrl.toString() },
    });
    const bearer = await restored.tokens.sign(tenant.tenantId);
    const get = (path: string) =>
      fetch(`${restored!.gatewayUrl}${path}`, { headers: { authorization: `Bearer ${bearer}` } });

    // Tenants (gateway schema): the limit set before the backup.
    const shown = await ops(restoredUrl.toString(), 'tenant', 'show', tenant.tenantId);
    expect(shown.status).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ tenantId: tenant.tenantId, certificateLimit: 7 });
    // Certificates (issuance schema), with their states.
    const keptAnswer = await get(`/v1/certificates/${kept.certificateId}`);
    expect(keptAnswer.status).toBe(200);
    expect(await keptAnswer.json()).toMatchObject({ serialNumber: kept.serialNumber, status: 'Active' });
    expect(await (await get(`/v1/certificates/${revoked.certificateId}`)).json()).toMatchObject({
      status: 'Revoked',
    });
    // Revocation as relying parties see it (ocsp and revocation schemas).
    expect(
      (await ocspStatus(restored.pkiUrl, tenant.tenantId, tenant.caDer, revoked.serialNumber)).kind,
    ).toBe('revoked');
    expect((await ocspStatus(restored.pkiUrl, tenant.tenantId, tenant.caDer, kept.serialNumber)).kind).toBe(
      'good',
    );
    await eventuallyCrl(restored.pkiUrl, tenant.tenantId, (crl) =>
      crl.entries.some((e) => e.serialNumberHex === revoked.serialNumber),
    );
    // The audit chain (events and head restored together) verifies.
    const verify = await ops(restoredUrl.toString(), 'audit', 'verify');
    expect({ status: verify.status, stderr: verify.stderr }).toEqual({ status: 0, stderr: '' });
    // The wrapped CA key opens under the same KEK: the restored system still issues.
    const answer = await fetch(`${restored.gatewayUrl}/v1/certificates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(issueBody({ commonName: 'after-restore' })),
    });
    expect(answer.status).toBe(200);
  }, 240_000);
});
