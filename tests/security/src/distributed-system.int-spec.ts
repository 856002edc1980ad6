import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { Client } from 'pg';
import { makeNatsServiceKeys, natsNkeySeedVariables } from '@ca/config';
import { waitFor } from '@ca/faults/testing';
import { freePorts } from '@ca/test-support';
import { partitionOf, partitionToken } from '@ca/messaging';
import { connectAs } from './support/rogue-client';
import { LogDir } from './support/log-dir';
import { describeWithRealServices } from './support/real-services';
import { SecuredNatsServer } from './support/secured-nats-server';
import { ServiceDatabase } from './support/service-database';
import { ServiceProcesses } from './support/service-processes';
import { Tenant } from './support/tenant';
import { TlsFiles, makeTlsFiles } from './support/tls-files';

/**
 * The whole system in distributed mode behind its trust boundaries (docs/security.md): NATS run
 * with deploy/nats/nats-server-nkeys.conf over TLS, each service signing in with its own NKey
 * (the password configuration runs in CI's shipped-bus pass) and on its own Postgres role from
 * deploy/postgres/init-roles.sql. It issues, revokes and answers OCSP, so the
 * permissions are sufficient, and the server logged no violation on the way, so none was missing.
 */
const TESTS = 8;
describeWithRealServices('security: distributed system', ['nats-server', 'openssl', 'psql'])(
  'distributed mode with per-service NATS keys over TLS and per-service Postgres roles',
  () => {
    const logs = new LogDir(TESTS);
    let tlsDir: string;
    let tls: TlsFiles;
    let nats: SecuredNatsServer;
    let database: ServiceDatabase;
    let system: ServiceProcesses;

    beforeAll(async () => {
      tlsDir = mkdtempSync(join(tmpdir(), 'ca-security-tls-'));
      tls = makeTlsFiles(tlsDir);
      nats = await SecuredNatsServer.start(logs.path, tls, 'nkey');
      database = await ServiceDatabase.create(process.env.DATABASE_URL!);
      system = await ServiceProcesses.start(nats, database, logs.path);
    }, 300_000);

    afterAll(async () => {
      await system?.stop();
      await nats?.remove();
      await database?.drop();
      rmSync(tlsDir, { recursive: true, force: true });
      logs.close();
    }, 60_000);

    afterEach(() => {
      const state = expect.getState();
      if (state.assertionCalls > 0 && state.suppressedErrors.length === 0) logs.testPassed();
    });

    it('started in reverse order, every service waited for the streams of issuance instead of exiting', () => {
      expect(Object.fromEntries(system.waitedFor)).toEqual({
        gateway: 'stream CA_EVENTS (created by issuance)',
        acme: 'stream CA_EVENTS (created by issuance)',
        'ocsp-responder': 'stream CA_EVENTS (created by issuance)',
        revocation: 'stream CA_EVENTS (created by issuance)',
        webhooks: 'stream CA_EVENTS (created by issuance)',
      });
    });

    it('issues, revokes, publishes the CRL and answers OCSP with no permission violation', async () => {
      const tenant = await Tenant.create(system);
      const issued = await tenant.admin('POST', '/v1/certificates', {
        clientId: 'security-client',
        commonName: 'security-client',
        organization: 'Acme',
        organizationalUnit: 'Security',
        country: 'US',
        validityDays: 30,
      });
      expect([issued.status, issued.body]).toEqual([200, expect.any(String)]);
      const { certificateId, serialNumber } = JSON.parse(issued.body) as {
        certificateId: string;
        serialNumber: string;
      };
      await waitFor(async () => (await tenant.ocspStatus(serialNumber)) === 'good', 30_000, 'OCSP good');

      const revoked = await tenant.admin('POST', `/v1/certificates/${certificateId}/revoke`, {
        reason: 'security suite',
        reasonCode: 'KeyCompromise',
      });
      expect([revoked.status, revoked.body]).toEqual([200, expect.any(String)]);
      await waitFor(
        async () => (await tenant.ocspStatus(serialNumber)) === 'revoked',
        30_000,
        'OCSP revoked',
      );
      // The CRL went revocation → issuance (crl.sign, TBS blob) → revocation → responder (CRL blob).
      await waitFor(
        async () =>
          ((await tenant.crlSerials()) ?? []).some((s) => s.toLowerCase() === serialNumber.toLowerCase()),
        30_000,
        'serial on the served CRL',
      );
      // A large reply travels as a blob that the gateway reads and deletes (list of certificates).
      const list = await tenant.admin('GET', '/v1/certificates');
      expect(list.status).toBe(200);
      // The only refusals: each service that started before issuance asked once to create the
      // stream (refused, it then waited for it).
      const unexpected = nats
        .violations()
        .filter((line) => !/Subject "\$JS\.API\.STREAM\.CREATE\.CA_EVENTS"/.test(line));
      expect(unexpected).toEqual([]);
      expect(nats.violations()).toHaveLength(5);
    }, 120_000);

    it("with only the responder's password, a consumer reshaped to headers_only is put back: a later revocation still reaches OCSP", async () => {
      const tenant = await Tenant.create(system);
      const issue = async (clientId: string) => {
        const answer = await tenant.admin('POST', '/v1/certificates', {
          clientId,
          commonName: clientId,
          organization: 'Acme',
          organizationalUnit: 'Security',
          country: 'US',
          validityDays: 30,
        });
        expect(answer.status).toBe(200);
        return JSON.parse(answer.body) as { certificateId: string; serialNumber: string };
      };
      const first = await issue('before-reshape');
      await waitFor(
        async () => (await tenant.ocspStatus(first.serialNumber)) === 'good',
        30_000,
        'OCSP good',
      );
      const rogue = await connectAs(nats, 'ocsp-responder');
      try {
        const jsm = await rogue.jetstreamManager();
        const consumer = `ocsp-responder-${partitionToken(partitionOf(tenant.tenantId))}`;
        // Allowed to this password (the responder creates its consumers): every event would arrive empty.
        await jsm.consumers.update('CA_EVENTS', consumer, { headers_only: true });
        const second = await issue('after-reshape');
        const revoked = await tenant.admin('POST', `/v1/certificates/${first.certificateId}/revoke`, {
          reason: 'security suite',
          reasonCode: 'KeyCompromise',
        });
        expect(revoked.status).toBe(200);
        await waitFor(
          async () => (await tenant.ocspStatus(first.serialNumber)) === 'revoked',
          30_000,
          'OCSP revoked',
        );
        await waitFor(
          async () => (await tenant.ocspStatus(second.serialNumber)) === 'good',
          30_000,
          'OCSP good',
        );
        expect((await jsm.consumers.info('CA_EVENTS', consumer)).config.headers_only ?? false).toBe(false);
      } finally {
        await rogue.close();
      }
    }, 120_000);

    it('role issuance cannot read the gateway tables, nor create a schema; it reads its own', async () => {
      const client = new Client({ connectionString: database.urlFor('issuance') });
      await client.connect();
      try {
        await expect(client.query('SELECT count(*) FROM gateway.tenants')).rejects.toMatchObject({
          code: '42501', // insufficient_privilege
        });
        await expect(client.query('SELECT count(*) FROM gateway.audit_events')).rejects.toMatchObject({
          code: '42501',
        });
        await expect(client.query('CREATE SCHEMA rogue')).rejects.toMatchObject({ code: '42501' });
        await expect(client.query('CREATE TABLE public.rogue (a int)')).rejects.toMatchObject({
          code: '42501',
        });
        const own = await client.query<{ count: string }>(
          'SELECT count(*) FROM issuance.certificate_authorities',
        );
        expect(Number(own.rows[0].count)).toBeGreaterThan(0);
      } finally {
        await client.end();
      }
    });

    it('each schema belongs to its own service role', async () => {
      const client = new Client({ connectionString: database.urlFor('gateway') });
      await client.connect();
      try {
        const { rows } = await client.query<{ schema: string; owner: string }>(
          `SELECT nspname AS schema, pg_get_userbyid(nspowner) AS owner FROM pg_namespace
           WHERE nspname IN ('gateway', 'issuance', 'revocation', 'ocsp') ORDER BY nspname`,
        );
        expect(rows).toEqual(
          ['gateway', 'issuance', 'ocsp', 'revocation'].map((schema) => ({
            schema,
            owner: `${database.rolePrefix}${schema}`,
          })),
        );
        const tables = await client.query<{ count: string }>(
          `SELECT count(*) FROM pg_tables WHERE schemaname = 'gateway' AND tableowner <> current_user`,
        );
        expect(tables.rows[0].count).toBe('0');
      } finally {
        await client.end();
      }
    });

    it('answers 503 with Retry-After on both ports while a service’s Postgres role is refused, serving the CRL, CA certificate and OCSP answers it holds in memory; recovers once allowed', async () => {
      const tenant = await Tenant.create(system);
      const issued = await tenant.admin('POST', '/v1/certificates', {
        clientId: 'refused-role',
        commonName: 'refused-role',
        organization: 'Acme',
        organizationalUnit: 'Security',
        country: 'US',
        validityDays: 30,
      });
      expect([issued.status, issued.body]).toEqual([200, expect.any(String)]);
      const { serialNumber } = JSON.parse(issued.body) as { serialNumber: string };
      await waitFor(async () => (await tenant.ocspStatus(serialNumber)) === 'good', 30_000, 'OCSP good');
      const pki = (path: string) => fetch(`${system.pkiUrl}/v1/tenants/${tenant.tenantId}/${path}`);
      await waitFor(async () => (await pki('crl')).status === 200, 30_000, 'first CRL served');
      const answered = async (response: Response) => [response.status, response.headers.get('retry-after')];
      const crlBefore = Buffer.from(await (await pki('crl')).arrayBuffer());
      expect((await pki('ca.pem')).status).toBe(200);

      await database.refuse('ocsp', 'nologin');
      try {
        // What needs the database: a tenant not read yet. The CRL and the CA certificate this
        // replica served before are served from memory (the CRL while it is valid).
        const unread = `${system.pkiUrl}/v1/tenants/${randomUUID()}/ca.pem`;
        expect(['unread ca.pem', await answered(await fetch(unread))]).toEqual(['unread ca.pem', [503, '5']]);
        for (let i = 0; i < 2; i++) {
          const crl = await pki('crl');
          expect(crl.status).toBe(200);
          expect(Buffer.from(await crl.arrayBuffer()).equals(crlBefore)).toBe(true);
        }
        expect((await pki('ca.pem')).status).toBe(200);
        // The answer in memory is still served; one that needs the database is put off (tryLater).
        expect(await tenant.ocspStatus(serialNumber)).toBe('good');
        expect(await tenant.ocspStatus('7e57ab1e')).toBe('HTTP 503');
      } finally {
        await database.allow('ocsp', 'nologin');
      }
      await waitFor(async () => (await pki('ca.pem')).status === 200, 30_000, 'ca.pem once allowed');

      await database.refuse('gateway', 'connect');
      try {
        for (let i = 0; i < 2; i++) {
          const response = await fetch(`${system.gatewayUrl}/v1/certificates`, {
            headers: { authorization: `Bearer ${await system.token(tenant.tenantId)}` },
          });
          expect(await answered(response)).toEqual([503, '5']);
        }
      } finally {
        await database.allow('gateway', 'connect');
      }
      await waitFor(
        async () => (await tenant.admin('GET', '/v1/certificates')).status === 200,
        30_000,
        'API once allowed',
      );
    }, 120_000);

    it('a service whose NKey seed the server does not know is refused and stops at start, saying why', async () => {
      const [stranger] = makeNatsServiceKeys(['revocation']);
      const violationsBefore = nats.violations().length;
      const [healthPort] = await freePorts(1);
      const log = await system.replicaExitLog('revocation', 'revocation-wrong-seed', (env) => ({
        ...env,
        HEALTH_PORT: String(healthPort),
        [natsNkeySeedVariables('revocation').seed]: stranger.seed,
      }));
      expect(log).toMatch(/Start-up failed: .*Authorization Violation/i);
      // It never signed in, so it never got to attempt anything.
      expect(nats.violations()).toHaveLength(violationsBefore);
    }, 90_000);

    it('TLS: a client that does not trust the server certificate is refused, one that does connects', async () => {
      const credentials = { ...nats.credentials('gateway'), inboxPrefix: '_INBOX.gateway' };
      await expect(
        connect({ servers: nats.url, ...credentials, tls: { caFile: tls.otherCaFile }, reconnect: false }),
      ).rejects.toThrow();
      // Without TLS at all the server, which requires it, does not let the client in either.
      await expect(
        connect({ servers: `nats://127.0.0.1:${nats.port}`, ...credentials, reconnect: false }),
      ).rejects.toThrow();
      const nc = await connect({ servers: nats.url, ...credentials, tls: { caFile: tls.caFile } });
      expect(nc.info?.tls_required).toBe(true);
      await nc.close();
    });
  },
);
