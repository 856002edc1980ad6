import 'reflect-metadata';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { RawAcmeClient, acmeErrorType } from './support/acme-client';
import { TestTenant, adminRequest, createTenant } from './support/admin-api';
import { freePorts } from './support/http';
import { eventuallyRevokedInOcsp, opensslAsync } from './support/pki';
import { hasProgram, runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * ACME (docs/api.md#acme) driven by a real client, lego, over both challenge types, and by hand
 * (jose) for what a real client never does: no EAB, spent or wrong nonces, a wrong url, a name
 * outside the tenant's policy, another tenant's EAB key, a stored EAB key moved to another tenant,
 * revokeCert signed by the certificate's own key or by a stranger.
 */
jest.setTimeout(120_000);

const modes = systemModes('acme suite');

describe.each(modes)('ACME (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let other: TestTenant;
  let dir: string;
  let http01Port: number;
  let tlsAlpnPort: number;
  const directoryOf = (t: TestTenant) => `${sut.gatewayUrl}/acme/${t.tenantId}/directory`;
  const createEabKey = async (t: TestTenant) => {
    const answer = await adminRequest(sut, 'POST', '/v2/acme/eab-keys', t.bearer);
    expect(answer.status).toBe(201);
    return answer.json<{ keyId: string; hmacKey: string }>();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-acme-'));
    [http01Port, tlsAlpnPort] = await freePorts(2);
    sut = await startSystemUnderTest(mode, {
      env: {
        ACME_HTTP01_PORT: String(http01Port),
        ACME_TLSALPN01_PORT: String(tlsAlpnPort),
        ACME_RESOLVE: '*.example.test=127.0.0.1,app.example.test=127.0.0.1',
        ACME_ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    tenant = await createTenant(sut, {
      commonName: 'ACME Test Root',
      organization: 'Example Holdings',
      country: 'DE',
    });
    other = await createTenant(sut, { commonName: 'Other Tenant Root' });
    const policy = await adminRequest(sut, 'PUT', '/v2/policy', tenant.bearer, {
      allowedDnsSuffixes: ['example.test'],
    });
    expect(policy.status).toBe(200);
  });

  afterAll(async () => {
    await sut?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates EAB keys once, lists them without the key, and disables them', async () => {
    const created = await createEabKey(tenant);
    expect(Buffer.from(created.hmacKey, 'base64url')).toHaveLength(32);
    const list = await adminRequest(sut, 'GET', '/v2/acme/eab-keys', tenant.bearer);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.hmacKey);
    expect(list.json<{ keys: { keyId: string; disabled: boolean }[] }>().keys).toContainEqual(
      expect.objectContaining({ keyId: created.keyId, disabled: false }),
    );
    const otherList = await adminRequest(sut, 'GET', '/v2/acme/eab-keys', other.bearer);
    expect(otherList.text).not.toContain(created.keyId);
    const disabled = await adminRequest(sut, 'DELETE', `/v2/acme/eab-keys/${created.keyId}`, tenant.bearer);
    expect(disabled.status).toBe(200);
    expect(disabled.json()).toMatchObject({ keyId: created.keyId, disabled: true });
    const readOnly = await tenant.tokenWithScope('certificates:read');
    expect((await adminRequest(sut, 'POST', '/v2/acme/eab-keys', readOnly)).status).toBe(403);
  });

  describe('protocol checks', () => {
    let client: RawAcmeClient;
    beforeAll(async () => {
      client = await RawAcmeClient.create(directoryOf(tenant));
    });

    it('serves the directory and fresh nonces', async () => {
      expect(client.directory.meta).toEqual({ externalAccountRequired: true });
      const head = await fetch(client.directory.newNonce, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('cache-control')).toBe('no-store');
      expect(head.headers.get('replay-nonce')).toMatch(/^[A-Za-z0-9_-]+$/);
    });

    it('refuses an account without external account binding', async () => {
      const answer = await client.post(
        client.directory.newAccount,
        await client.jws(client.directory.newAccount, { termsOfServiceAgreed: true }),
      );
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(acmeErrorType(answer)).toBe('externalAccountRequired');
    });

    it('refuses an unknown nonce and a replayed one, with a fresh nonce to retry', async () => {
      const url = client.directory.newAccount;
      const bad = await client.post(url, await client.jws(url, {}, { nonce: 'bm90LWEtbm9uY2U' }));
      expect(acmeErrorType(bad)).toBe('badNonce');
      expect(bad.headers.get('replay-nonce')).toBeTruthy();
      const jws = await client.jws(url, {});
      await client.post(url, jws);
      const replayed = await client.post(url, jws);
      expect(acmeErrorType(replayed)).toBe('badNonce');
    });

    it('refuses a JWS whose url is not the request URL', async () => {
      const answer = await client.post(
        client.directory.newAccount,
        await client.jws(client.directory.newOrder, {}),
      );
      expect(acmeErrorType(answer)).toBe('unauthorized');
    });

    it("refuses another tenant's EAB key", async () => {
      const foreign = await createEabKey(other);
      const url = client.directory.newAccount;
      const answer = await client.post(
        url,
        await client.jws(url, {
          termsOfServiceAgreed: true,
          externalAccountBinding: await client.externalAccountBinding(foreign.keyId, foreign.hmacKey),
        }),
      );
      expect(answer.status).toBe(403);
      expect(acmeErrorType(answer)).toBe('unauthorized');
    });

    it('opens an account with EAB, binds the key once, and refuses names outside the policy', async () => {
      const key = await createEabKey(tenant);
      const url = client.directory.newAccount;
      const eab = await client.externalAccountBinding(key.keyId, key.hmacKey);
      const created = await client.post(
        url,
        await client.jws(url, { termsOfServiceAgreed: true, externalAccountBinding: eab }),
      );
      expect(created.status).toBe(201);
      const accountUrl = created.headers.get('location')!;
      expect(accountUrl).toContain(`/acme/${tenant.tenantId}/account/`);
      const again = await client.post(url, await client.jws(url, { onlyReturnExisting: true }));
      expect(again.status).toBe(200);
      expect(again.headers.get('location')).toBe(accountUrl);
      const second = await RawAcmeClient.create(directoryOf(tenant));
      const reused = await second.post(
        url,
        await second.jws(url, {
          externalAccountBinding: await second.externalAccountBinding(key.keyId, key.hmacKey),
        }),
      );
      expect(acmeErrorType(reused)).toBe('unauthorized');

      const orderUrl = client.directory.newOrder;
      const outside = await client.post(
        orderUrl,
        await client.jws(
          orderUrl,
          { identifiers: [{ type: 'dns', value: 'app.elsewhere.test' }] },
          { jwk: undefined, kid: accountUrl },
        ),
      );
      expect(outside.status).toBe(400);
      expect(acmeErrorType(outside)).toBe('rejectedIdentifier');
      const inside = await client.post(
        orderUrl,
        await client.jws(
          orderUrl,
          { identifiers: [{ type: 'dns', value: 'x.example.test' }] },
          { jwk: undefined, kid: accountUrl },
        ),
      );
      expect(inside.status).toBe(201);
      expect(inside.json()).toMatchObject({
        status: 'pending',
        identifiers: [{ type: 'dns', value: 'x.example.test' }],
      });
    });
  });

  it('rolls an account key over, and a deactivated account can no longer act', async () => {
    const client = await RawAcmeClient.create(directoryOf(tenant));
    const key = await createEabKey(tenant);
    const url = client.directory.newAccount;
    const created = await client.post(
      url,
      await client.jws(url, {
        externalAccountBinding: await client.externalAccountBinding(key.keyId, key.hmacKey),
      }),
    );
    const accountUrl = created.headers.get('location')!;
    const kid = { jwk: undefined, kid: accountUrl };

    const next = await client.withNewKey();
    const keyChange = client.directory.keyChange;
    const rolled = await client.post(
      keyChange,
      await client.jws(keyChange, await next.keyChangeInner(accountUrl, client.jwk), kid),
    );
    expect(rolled.status).toBe(200);
    const oldKeyLookup = await client.post(url, await client.jws(url, { onlyReturnExisting: true }));
    expect(acmeErrorType(oldKeyLookup)).toBe('accountDoesNotExist');
    const newKeyLookup = await next.post(url, await next.jws(url, { onlyReturnExisting: true }));
    expect(newKeyLookup.headers.get('location')).toBe(accountUrl);

    const deactivated = await next.post(
      accountUrl,
      await next.jws(accountUrl, { status: 'deactivated' }, kid),
    );
    expect(deactivated.json()).toMatchObject({ status: 'deactivated' });
    const order = client.directory.newOrder;
    const refused = await next.post(
      order,
      await next.jws(order, { identifiers: [{ type: 'dns', value: 'y.example.test' }] }, kid),
    );
    expect(refused.status).toBe(403);
    expect(acmeErrorType(refused)).toBe('unauthorized');
  });

  it('keeps EAB keys sealed at rest: no key in the table, usable after a restart, refused once moved', async () => {
    const kept = await createEabKey(tenant);
    const moved = await createEabKey(tenant);
    const db = new Client({ connectionString: sut.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM acme.eab_keys');
      expect(rows.length).toBeGreaterThanOrEqual(2);
      for (const { hmacKey } of [kept, moved]) {
        const raw = Buffer.from(hmacKey, 'base64url');
        const texts = [hmacKey, raw.toString('base64'), raw.toString('hex')];
        for (const value of rows.flatMap((row) => Object.values(row))) {
          if (Buffer.isBuffer(value)) expect(value.includes(raw)).toBe(false);
          else for (const text of texts) expect(String(value)).not.toContain(text);
        }
      }
      await db.query('UPDATE acme.eab_keys SET tenant_id = $1 WHERE key_id = $2', [
        other.tenantId,
        moved.keyId,
      ]);
    } finally {
      await db.end();
    }
    await sut.restart();

    const openAccount = async (t: TestTenant, key: { keyId: string; hmacKey: string }) => {
      const client = await RawAcmeClient.create(directoryOf(t));
      const url = client.directory.newAccount;
      return client.post(
        url,
        await client.jws(url, {
          termsOfServiceAgreed: true,
          externalAccountBinding: await client.externalAccountBinding(key.keyId, key.hmacKey),
        }),
      );
    };
    expect((await openAccount(tenant, kept)).status).toBe(201);
    for (const t of [other, tenant]) {
      const refused = await openAccount(t, moved);
      expect(refused.status).toBe(403);
      expect(acmeErrorType(refused)).toBe('unauthorized');
    }
  });

  const legoIt = hasProgram('lego') ? it : it.skip;
  if (!hasProgram('lego')) console.warn('lego is not installed: the ACME real-client tests are skipped');

  /** lego with a new EAB key of the tenant (lego wants the flags even for an account it has). */
  const lego = async (
    t: TestTenant,
    args: string[],
    path: string,
    key?: { keyId: string; hmacKey: string },
  ) => {
    key ??= await createEabKey(t);
    const result = await runProgram(
      'lego',
      [
        '--server',
        directoryOf(t),
        '--accept-tos',
        '--email',
        'ops@example.test',
        '--eab',
        '--kid',
        key.keyId,
        '--hmac',
        key.hmacKey,
        '--path',
        path,
        ...args,
      ],
      { timeoutMs: 60_000, env: { ...process.env, LEGO_DISABLE_CNAME_SUPPORT: 'true' } },
    );
    return { ...result, key };
  };

  legoIt(
    'lego gets a certificate over http-01, which is an ordinary certificate of the tenant, and revokes it',
    async () => {
      const path = join(dir, 'lego-http');
      const run = await lego(
        tenant,
        ['--domains', 'app.example.test', '--http', '--http.port', `127.0.0.1:${http01Port}`, 'run'],
        path,
      );
      expect(run.stderr).toContain('Server responded with a certificate');
      expect(run.status).toBe(0);
      const chain = readFileSync(join(path, 'certificates', 'app.example.test.crt'), 'utf8');
      const leafPem = chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 25);
      const leaf = new X509Certificate(leafPem);
      expect(leaf.subjectAltName).toBe('DNS:app.example.test');
      // docs/api.md#acme-certificate-profile: CN the identifier, O and C the tenant CA's.
      expect(leaf.subject.split('\n').sort()).toEqual([
        'C=DE',
        'CN=app.example.test',
        'O=Example Holdings',
        'OU=Domain Control Validated',
      ]);
      writeFileSync(join(dir, 'ca.pem'), tenant.caPem);
      writeFileSync(join(dir, 'leaf.pem'), chain);
      const verified = await opensslAsync([
        'verify',
        '-CAfile',
        join(dir, 'ca.pem'),
        '-untrusted',
        join(dir, 'leaf.pem'),
        join(dir, 'leaf.pem'),
      ]);
      expect(verified.stdout).toContain('OK');
      const listed = await tenant.get('/v1/certificates');
      const serial = leaf.serialNumber.toLowerCase();
      const summary = listed
        .json<{ certificates: { serialNumber: string; clientId: string }[] }>()
        .certificates.find(
          (c) => c.serialNumber.toLowerCase().replace(/^0+/, '') === serial.replace(/^0+/, ''),
        );
      expect(summary?.clientId).toMatch(/^acme:/);

      const revoke = await lego(tenant, ['--domains', 'app.example.test', 'revoke'], path, run.key);
      expect(revoke.stderr).toContain('Certificate was revoked');
      expect(revoke.status).toBe(0);
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, summary!.serialNumber);
    },
  );

  legoIt('lego gets a certificate over tls-alpn-01', async () => {
    const path = join(dir, 'lego-tls');
    const run = await lego(
      tenant,
      ['--domains', 'tls.example.test', '--tls', '--tls.port', `127.0.0.1:${tlsAlpnPort}`, 'run'],
      path,
    );
    expect(run.stderr).toContain('Server responded with a certificate');
    expect(run.status).toBe(0);
    const chain = readFileSync(join(path, 'certificates', 'tls.example.test.crt'), 'utf8');
    expect(new X509Certificate(chain).subjectAltName).toBe('DNS:tls.example.test');
  });

  legoIt('lego cannot get a name outside the policy', async () => {
    const outside = await lego(
      tenant,
      ['--domains', 'app.elsewhere.test', '--http', '--http.port', `127.0.0.1:${http01Port}`, 'run'],
      join(dir, 'lego-outside'),
    );
    expect(outside.status).not.toBe(0);
    expect(outside.stderr).toContain('rejectedIdentifier');
  });

  legoIt(
    'revokeCert: refused to another account and for a bad reason, done with the certificate key, then alreadyRevoked',
    async () => {
      const path = join(dir, 'lego-revoke');
      const run = await lego(
        tenant,
        ['--domains', 'rev.example.test', '--http', '--http.port', `127.0.0.1:${http01Port}`, 'run'],
        path,
      );
      expect(run.status).toBe(0);
      const leaf = new X509Certificate(readFileSync(join(path, 'certificates', 'rev.example.test.crt')));
      const certificate = leaf.raw.toString('base64url');

      // An account of the same tenant that did not order it (RFC 8555 7.6).
      const stranger = await RawAcmeClient.create(directoryOf(tenant));
      const strangerKey = await createEabKey(tenant);
      const newAccount = stranger.directory.newAccount;
      const opened = await stranger.post(
        newAccount,
        await stranger.jws(newAccount, {
          externalAccountBinding: await stranger.externalAccountBinding(
            strangerKey.keyId,
            strangerKey.hmacKey,
          ),
        }),
      );
      expect(opened.status).toBe(201);
      const revokeUrl = stranger.directory.revokeCert;
      const asStranger = { jwk: undefined, kid: opened.headers.get('location')! };
      const byStranger = await stranger.post(
        revokeUrl,
        await stranger.jws(revokeUrl, { certificate }, asStranger),
      );
      expect(byStranger.status).toBe(403);
      expect(acmeErrorType(byStranger)).toBe('unauthorized');
      // A key that is neither the account's nor the certificate's.
      const otherKey = await stranger.withNewKey();
      const byOtherKey = await otherKey.post(revokeUrl, await otherKey.jws(revokeUrl, { certificate }));
      expect(acmeErrorType(byOtherKey)).toBe('unauthorized');

      // Signed by the certificate's own key, jwk in the header.
      const holder = stranger.withKey(
        createPrivateKey(readFileSync(join(path, 'certificates', 'rev.example.test.key'))),
      );
      for (const reason of [2, 6, 7, 8, 10, 'keyCompromise']) {
        const refused = await holder.post(revokeUrl, await holder.jws(revokeUrl, { certificate, reason }));
        expect(refused.status).toBe(400);
        expect(acmeErrorType(refused)).toBe('badRevocationReason');
      }
      const revoked = await holder.post(revokeUrl, await holder.jws(revokeUrl, { certificate, reason: 1 }));
      expect(revoked.status).toBe(200);
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, leaf.serialNumber);
      const again = await holder.post(revokeUrl, await holder.jws(revokeUrl, { certificate, reason: 4 }));
      expect(again.status).toBe(400);
      expect(acmeErrorType(again)).toBe('alreadyRevoked');
    },
  );

  const certbotIt = hasProgram('certbot') ? it : it.skip;
  if (!hasProgram('certbot')) console.warn('certbot is not installed: the certbot test is skipped');

  certbotIt('certbot gets a certificate over http-01 (standalone) with EAB, and revokes it', async () => {
    const key = await createEabKey(tenant);
    const base = join(dir, 'certbot');
    const common = [
      '--non-interactive',
      '--config-dir',
      join(base, 'config'),
      '--work-dir',
      join(base, 'work'),
      '--logs-dir',
      join(base, 'logs'),
      '--server',
      directoryOf(tenant),
    ];
    const run = await runProgram(
      'certbot',
      [
        'certonly',
        ...common,
        '--standalone',
        '--preferred-challenges',
        'http',
        '--http-01-address',
        '127.0.0.1',
        '--http-01-port',
        String(http01Port),
        '--agree-tos',
        '-m',
        'ops@example.test',
        '--eab-kid',
        key.keyId,
        '--eab-hmac-key',
        key.hmacKey,
        '-d',
        'certbot.example.test',
      ],
      { timeoutMs: 90_000, env: process.env },
    );
    expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    const certPath = join(base, 'config', 'live', 'certbot.example.test', 'cert.pem');
    const leaf = new X509Certificate(readFileSync(certPath));
    expect(leaf.subjectAltName).toBe('DNS:certbot.example.test');
    expect(leaf.subject).toContain('CN=certbot.example.test');

    const revoke = await runProgram(
      'certbot',
      ['revoke', ...common, '--cert-path', certPath, '--reason', 'superseded', '--no-delete-after-revoke'],
      { timeoutMs: 60_000, env: process.env },
    );
    expect({ status: revoke.status, stderr: revoke.status === 0 ? '' : revoke.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, leaf.serialNumber);
  });
});
