import 'reflect-metadata';
import { KeyObject, X509Certificate, randomUUID, createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { createServer } from 'node:http';
import { Client } from 'pg';
import { ariCertId, derToPem, generateEcKeyPair, parseCertificate } from '@ca/pki';
import { buildTestCsr } from '@ca/pki/testing';
import { RawAcmeClient, acmeErrorType } from './support/acme-client';
import { TestTenant, adminRequest, createTenant } from './support/admin-api';
import { servedBy, startCaddy } from './support/caddy';
import { TestDnsServer } from './support/dns-server';
import { eventually, freePorts, http } from './support/http';
import { eventuallyRevokedInOcsp, opensslAsync } from './support/pki';
import { hasProgram, runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * ACME (docs/api.md#acme) driven by real clients (lego over http-01, tls-alpn-01 and dns-01 with a
 * wildcard; certbot; Caddy) and by hand (jose) for what a real client never does: no EAB, spent or
 * wrong nonces, a wrong url, a name outside the tenant's policy, another tenant's EAB key, a stored
 * EAB key moved to another tenant, revokeCert signed by the certificate's own key or by a stranger,
 * a dns-01 record behind a CNAME or with a wrong value, a finalize the policy's allowed usages
 * refuse. dns-01 asks a DNS server of the test's own (ACME_DNS_RESOLVER).
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
  let dns: TestDnsServer;
  const directoryOf = (t: TestTenant) => `${sut.gatewayUrl}/acme/${t.tenantId}/directory`;
  const createEabKey = async (t: TestTenant) => {
    const answer = await adminRequest(sut, 'POST', '/v2/acme/eab-keys', t.bearer);
    expect(answer.status).toBe(201);
    return answer.json<{ keyId: string; hmacKey: string }>();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-acme-'));
    [http01Port, tlsAlpnPort] = await freePorts(2);
    dns = await TestDnsServer.start(join(dir, 'dns-records'));
    sut = await startSystemUnderTest(mode, {
      shippedBus: true,
      env: {
        ACME_HTTP01_PORT: String(http01Port),
        ACME_TLSALPN01_PORT: String(tlsAlpnPort),
        ACME_RESOLVE: '*.example.test=127.0.0.1,app.example.test=127.0.0.1',
        ACME_ALLOW_PRIVATE_TARGETS: 'true',
        ACME_DNS_RESOLVER: dns.address,
        // Every client of this suite is 127.0.0.1 in one tenant: the per-address limit is the tenant's.
        ACME_RATE_LIMIT_PER_SOURCE: '1200',
      },
    });
    tenant = await createTenant(sut, {
      commonName: 'ACME Test Root',
      organization: 'Example Holdings',
      country: 'DE',
    });
    other = await createTenant(sut, { commonName: 'Other Tenant Root' });
    const policy = await adminRequest(sut, 'PUT', '/v2/policy', tenant.bearer, {
      allowedDnsSuffixes: ['example.test', 'wild.test'],
    });
    expect(policy.status).toBe(200);
  });

  afterAll(async () => {
    await sut?.stop();
    await dns?.close();
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

    it('refuses a body over 64 KiB (413) and one that is not UTF-8 (400) as ACME problems', async () => {
      const url = client.directory.newAccount;
      const large = await client.post(url, { protected: 'x'.repeat(65 * 1024), payload: '', signature: '' });
      expect(large.status).toBe(413);
      expect(acmeErrorType(large)).toBe('malformed');
      const notUtf8 = await http(url, {
        method: 'POST',
        headers: { 'content-type': 'application/jose+json' },
        body: Buffer.from([0x7b, 0xff, 0x7d]),
      });
      expect(notUtf8.status).toBe(400);
      expect(acmeErrorType(notUtf8)).toBe('malformed');
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

    it('answers 404, without a nonce, under a tenant that does not exist; a nonce holds only for its tenant', async () => {
      for (const segment of [randomUUID(), 'not-a-tenant']) {
        const base = `${sut.gatewayUrl}/acme/${segment}`;
        expect((await http(`${base}/directory`)).status).toBe(404);
        const nonce = await http(`${base}/new-nonce`, { method: 'HEAD' });
        expect(nonce.status).toBe(404);
        expect(nonce.headers.get('replay-nonce')).toBeNull();
        const post = await client.post(`${base}/new-account`, await client.jws(`${base}/new-account`, {}));
        expect(post.status).toBe(404);
        expect(post.headers.get('replay-nonce')).toBeNull();
      }
      const foreign = await RawAcmeClient.create(directoryOf(other));
      const url = client.directory.newAccount;
      const answer = await client.post(url, await client.jws(url, {}, { nonce: await foreign.nonce() }));
      expect(answer.status).toBe(400);
      expect(acmeErrorType(answer)).toBe('badNonce');
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

  it('audits the ACME requests that ask for a change, answered or refused, and not the reads', async () => {
    const since = new Date().toISOString();
    const client = await RawAcmeClient.create(directoryOf(other));
    const key = await createEabKey(other);
    const url = client.directory.newAccount;
    const refused = await client.post(url, await client.jws(url, { termsOfServiceAgreed: true }));
    expect(acmeErrorType(refused)).toBe('externalAccountRequired');
    const eab = await client.externalAccountBinding(key.keyId, key.hmacKey);
    const created = await client.post(
      url,
      await client.jws(url, { termsOfServiceAgreed: true, externalAccountBinding: eab }),
    );
    expect(created.status).toBe(201);
    const accountUrl = created.headers.get('location')!;
    const asAccount = { jwk: undefined, kid: accountUrl };
    // Reads: the directory, new-nonce (one per JWS above and below), a POST-as-GET of the account.
    expect((await http(directoryOf(other))).status).toBe(200);
    const read = await client.post(accountUrl, await client.jws(accountUrl, '', asAccount));
    expect(read.status).toBe(200);
    const updated = await client.post(accountUrl, await client.jws(accountUrl, { contact: [] }, asAccount));
    expect(updated.status).toBe(200);
    const accountPath = new URL(accountUrl).pathname;
    const newAccountPath = new URL(url).pathname;
    const audited = await eventually(async () => {
      const answer = await adminRequest(
        sut,
        'GET',
        `/v2/audit?action=acme.request&since=${encodeURIComponent(since)}`,
        other.bearer,
      );
      const entries = answer.json<{ entries: { resource: string; result: number; principal: string }[] }>()
        .entries;
      return entries.some((e) => e.resource === accountPath) ? entries : undefined;
    });
    expect(audited.map((e) => [e.resource, e.result]).reverse()).toEqual([
      [newAccountPath, 400],
      [newAccountPath, 201],
      [accountPath, 200],
    ]);
    expect(audited[0].principal).toBe(`acme:${accountPath.split('/').pop()}`);
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
    // RFC 8555 7.3.6: nothing signed with a deactivated account's key is accepted, not even newAccount.
    const again = await next.post(url, await next.jws(url, { onlyReturnExisting: true }));
    expect(again.status).toBe(401);
    expect(acmeErrorType(again)).toBe('unauthorized');
  });

  describe('dns-01', () => {
    interface AuthorizationView {
      status: string;
      identifier: { type: string; value: string };
      wildcard?: boolean;
      challenges: { type: string; url: string; token: string; status: string; error?: { type: string } }[];
    }
    /**
     * An account of the tenant (or of `t`), and POST-as-GET / POST helpers signed with its kid;
     * `keys` makes the account key a given P-256 pair (to put it in a CSR).
     */
    const openAccount = async (t: TestTenant = tenant, keys?: webcrypto.CryptoKeyPair) => {
      const created0 = await RawAcmeClient.create(directoryOf(t));
      const client = keys ? created0.withKey(KeyObject.from(keys.privateKey)) : created0;
      const key = await createEabKey(t);
      const url = client.directory.newAccount;
      const created = await client.post(
        url,
        await client.jws(url, {
          termsOfServiceAgreed: true,
          externalAccountBinding: await client.externalAccountBinding(key.keyId, key.hmacKey),
        }),
      );
      expect(created.status).toBe(201);
      const kid = { jwk: undefined, kid: created.headers.get('location')! };
      const post = async (target: string, payload: unknown) =>
        client.post(target, await client.jws(target, payload, kid));
      const order = async (...names: string[]) => {
        const answer = await post(client.directory.newOrder, {
          identifiers: names.map((value) => ({ type: 'dns', value })),
        });
        expect(answer.status).toBe(201);
        const { authorizations } = answer.json<{ authorizations: string[] }>();
        return Promise.all(
          authorizations.map(async (authz) => ({
            url: authz,
            ...(await post(authz, '')).json<AuthorizationView>(),
          })),
        );
      };
      // RFC 8555 8.4: the TXT value is base64url(SHA-256(token "." thumbprint)).
      const thumbprint = await calculateJwkThumbprint(client.jwk);
      const txtFor = (token: string) =>
        createHash('sha256').update(`${token}.${thumbprint}`).digest('base64url');
      const settled = (authz: string) =>
        eventually(
          async () => {
            const view = (await post(authz, '')).json<AuthorizationView>();
            return view.status === 'pending' ? undefined : view;
          },
          20_000,
          'the authorization to leave pending',
        );
      /** An order whose every name is proved through dns-01: ready to finalize. */
      const readyOrder = async (...names: string[]) => readyOrderWith({}, ...names);
      /** The same, with more newOrder fields (`replaces`, `profile`). */
      const readyOrderWith = async (extra: Record<string, unknown>, ...names: string[]) => {
        const created = await post(client.directory.newOrder, {
          identifiers: names.map((value) => ({ type: 'dns', value })),
          ...extra,
        });
        expect(created.status).toBe(201);
        const view = created.json<{ authorizations: string[]; finalize: string }>();
        for (const authz of view.authorizations) {
          const { challenges, identifier } = (await post(authz, '')).json<AuthorizationView>();
          const challenge = challenges.find((c) => c.type === 'dns-01')!;
          dns.txt.set(`_acme-challenge.${identifier.value}`, [txtFor(challenge.token)]);
          await post(challenge.url, {});
          expect((await settled(authz)).status).toBe('valid');
        }
        return { url: created.headers.get('location')!, ...view };
      };
      return {
        client,
        accountUrl: kid.kid,
        post,
        order,
        readyOrder,
        readyOrderWith,
        txtFor,
        settled,
        newOrder: client.directory.newOrder,
      };
    };
    const csrFor = async (keys: webcrypto.CryptoKeyPair, name: string) =>
      Buffer.from(await buildTestCsr(keys, name)).toString('base64url');

    it('a wildcard authorization names the domain, says wildcard and offers dns-01 only; a TXT record behind a CNAME validates it', async () => {
      const account = await openAccount();
      const [authz] = await account.order('*.raw.example.test');
      expect(authz).toMatchObject({
        status: 'pending',
        identifier: { type: 'dns', value: 'raw.example.test' },
        wildcard: true,
      });
      expect(authz.challenges.map((c) => c.type)).toEqual(['dns-01']);
      const [challenge] = authz.challenges;
      // The record is delegated: _acme-challenge CNAMEs to another zone, which holds it among others.
      dns.cnames.set('_acme-challenge.raw.example.test', 'raw.challenges.dns.test');
      dns.txt.set('raw.challenges.dns.test', ['v=other-record', account.txtFor(challenge.token)]);
      // RFC 8555 7.5.1: the validation ends within the POST, which answers its final state.
      const posted = await account.post(challenge.url, {});
      expect(posted.status).toBe(200);
      expect(posted.json<{ status: string; validated?: string }>()).toMatchObject({
        status: 'valid',
        validated: expect.any(String),
      });
      const done = await account.settled(authz.url);
      expect(done.status).toBe('valid');
      expect(done.challenges[0].status).toBe('valid');
      expect(dns.queries).toContain('_acme-challenge.raw.example.test');
    });

    it('a TXT record with another value, or none, makes the authorization invalid', async () => {
      const account = await openAccount();
      const authorizations = await account.order('wrong.example.test', 'missing.example.test');
      const named = (name: string) => authorizations.find((a) => a.identifier.value === name)!;
      const [wrong, missing] = [named('wrong.example.test'), named('missing.example.test')];
      expect(wrong.wildcard).toBeUndefined();
      expect(wrong.challenges.map((c) => c.type).sort()).toEqual(['dns-01', 'http-01', 'tls-alpn-01']);
      dns.txt.set('_acme-challenge.wrong.example.test', [account.txtFor('another-token')]);
      for (const [authz, type] of [
        [wrong, 'incorrectResponse'],
        [missing, 'unauthorized'],
      ] as const) {
        const challenge = authz.challenges.find((c) => c.type === 'dns-01')!;
        const posted = await account.post(challenge.url, {});
        expect(posted.json<{ status: string; error?: { type: string } }>()).toMatchObject({
          status: 'invalid',
          error: { type: `urn:ietf:params:acme:error:${type}` },
        });
        const done = await account.settled(authz.url);
        expect(done.status).toBe('invalid');
        expect(done.challenges.find((c) => c.type === 'dns-01')?.error?.type).toBe(
          `urn:ietf:params:acme:error:${type}`,
        );
      }
    });

    it("refuses to finalize while the tenant's policy allows no Server usage; nothing is signed", async () => {
      const account = await openAccount();
      const created = await account.post(account.newOrder, {
        identifiers: [{ type: 'dns', value: 'usage.example.test' }],
      });
      expect(created.status).toBe(201);
      const orderUrl = created.headers.get('location')!;
      const { authorizations, finalize } = created.json<{ authorizations: string[]; finalize: string }>();
      const authz = (await account.post(authorizations[0], '')).json<AuthorizationView>();
      const challenge = authz.challenges.find((c) => c.type === 'dns-01')!;
      dns.txt.set('_acme-challenge.usage.example.test', [account.txtFor(challenge.token)]);
      await account.post(challenge.url, {});
      expect((await account.settled(authorizations[0])).status).toBe('valid');
      const csr = Buffer.from(await buildTestCsr(await generateEcKeyPair(false), 'usage.example.test'));
      const setPolicy = (body: Record<string, unknown>) =>
        adminRequest(sut, 'PUT', '/v2/policy', tenant.bearer, {
          allowedDnsSuffixes: ['example.test', 'wild.test'],
          ...body,
        });
      const count = async () =>
        (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>().certificates.length;

      expect((await setPolicy({ allowedUsages: ['Client'] })).status).toBe(200);
      try {
        const before = await count();
        const refused = await account.post(finalize, { csr: csr.toString('base64url') });
        expect(refused.status).toBe(403);
        expect(acmeErrorType(refused)).toBe('unauthorized');
        expect(refused.json()).toMatchObject({ code: 'USAGE_NOT_ALLOWED_BY_POLICY' });
        expect((await account.post(orderUrl, '')).json()).toMatchObject({ status: 'ready' });
        expect(await count()).toBe(before);
      } finally {
        expect((await setPolicy({})).status).toBe(200);
      }
      // Server allowed again: the same order finalizes.
      expect((await account.post(finalize, { csr: csr.toString('base64url') })).status).toBe(200);
      expect((await account.post(orderUrl, '')).json()).toMatchObject({ status: 'valid' });
    });

    it("refuses to finalize a CSR for the account's key or another account key of the tenant (badCSR)", async () => {
      const accountKeys = await generateEcKeyPair(true);
      const account = await openAccount(tenant, accountKeys);
      const otherKeys = await generateEcKeyPair(true);
      await openAccount(tenant, otherKeys);
      const order = await account.readyOrder('csr-key.example.test');
      for (const keys of [accountKeys, otherKeys]) {
        const refused = await account.post(order.finalize, {
          csr: await csrFor(keys, 'csr-key.example.test'),
        });
        expect(refused.status).toBe(400);
        expect(acmeErrorType(refused)).toBe('badCSR');
      }
      expect((await account.post(order.url, '')).json()).toMatchObject({ status: 'ready' });
    });

    it('issues a name longer than a CN may hold (64): no CN, the name in the SAN, and openssl verifies it', async () => {
      const long = `${'a'.repeat(60)}.long.example.test`;
      const account = await openAccount();
      const order = await account.readyOrder(long);
      const keys = await generateEcKeyPair(false);
      const finalized = await account.post(order.finalize, { csr: await csrFor(keys, long) });
      expect(finalized.status).toBe(200);
      const chain = (await account.post(finalized.json<{ certificate: string }>().certificate, '')).text;
      const leaf = new X509Certificate(chain);
      expect(leaf.subject.split('\n').sort()).toEqual([
        'C=DE',
        'O=Example Holdings',
        'OU=Domain Control Validated',
      ]);
      expect(leaf.subjectAltName).toBe(`DNS:${long}`);
      const [caFile, chainFile] = [join(dir, 'long-ca.pem'), join(dir, 'long-chain.pem')];
      writeFileSync(caFile, tenant.caPem);
      writeFileSync(chainFile, chain);
      const verified = await opensslAsync(
        [
          'verify',
          '-x509_strict',
          '-purpose',
          'sslserver',
          '-verify_hostname',
          long,
          '-CAfile',
          caFile,
        ].concat(['-untrusted', chainFile, chainFile]),
      );
      expect(verified.stdout).toContain('OK');
    });

    it('a finalize the policy no longer allows is rejectedIdentifier, naming the name, not a server error', async () => {
      const account = await openAccount();
      const order = await account.readyOrder('narrowed.example.test');
      const setSuffixes = (allowedDnsSuffixes: string[]) =>
        adminRequest(sut, 'PUT', '/v2/policy', tenant.bearer, { allowedDnsSuffixes });
      expect((await setSuffixes(['wild.test'])).status).toBe(200);
      try {
        const keys = await generateEcKeyPair(false);
        const refused = await account.post(order.finalize, {
          csr: await csrFor(keys, 'narrowed.example.test'),
        });
        expect(refused.status).toBe(400);
        expect(acmeErrorType(refused)).toBe('rejectedIdentifier');
        expect(refused.json<{ detail: string }>().detail).toContain('narrowed.example.test');
      } finally {
        expect((await setSuffixes(['example.test', 'wild.test'])).status).toBe(200);
      }
    });

    it('a tenant without a CA has no ACME server until initialized, then at once; under a revoked issuing CA finalize is unauthorized', async () => {
      const twoTier = await createTenant(sut, { ca: false });
      expect((await http(directoryOf(twoTier))).status).toBe(404);
      const initialized = await twoTier.post('/v2/ca/initialize', {
        commonName: 'ACME Two-Tier Root',
        organization: 'Example Holdings',
        country: 'DE',
        validityYears: 5,
      });
      expect(initialized.status).toBe(200);
      expect((await http(directoryOf(twoTier))).status).toBe(200);

      const account = await openAccount(twoTier);
      const order = await account.readyOrder('two-tier.example.test');
      const { issuingCa } = initialized.json<{ issuingCa: { caId: string } }>();
      const revoked = await twoTier.post(`/v2/ca/${issuingCa.caId}/revoke`, {
        reason: 'key leaked',
        reasonCode: 'KeyCompromise',
      });
      expect(revoked.status).toBe(200);
      const keys = await generateEcKeyPair(false);
      const refused = await account.post(order.finalize, {
        csr: await csrFor(keys, 'two-tier.example.test'),
      });
      expect(refused.status).toBe(403);
      expect(acmeErrorType(refused)).toBe('unauthorized');
      expect(refused.json()).toMatchObject({ code: 'ISSUING_CA_REVOKED' });
      expect((await account.post(order.url, '')).json()).toMatchObject({ status: 'ready' });
    });

    it('deactivates an authorization: its order becomes invalid and leaves the orders list; POST-as-GET takes only an empty payload', async () => {
      const account = await openAccount();
      const created = await account.post(account.newOrder, {
        identifiers: [{ type: 'dns', value: 'deactivate.example.test' }],
      });
      expect(created.status).toBe(201);
      const orderUrl = created.headers.get('location')!;
      const [authz] = created.json<{ authorizations: string[] }>().authorizations;
      for (const url of [orderUrl, authz]) {
        const notEmpty = await account.post(url, {});
        expect(notEmpty.status).toBe(400);
        expect(acmeErrorType(notEmpty)).toBe('malformed');
      }
      const orders = async () =>
        (await account.post(`${account.accountUrl}/orders`, '')).json<{ orders: string[] }>().orders;
      expect(await orders()).toContain(orderUrl);

      const deactivated = await account.post(authz, { status: 'deactivated' });
      expect(deactivated.status).toBe(200);
      expect(deactivated.json()).toMatchObject({ status: 'deactivated' });
      expect((await account.post(authz, '')).json()).toMatchObject({ status: 'deactivated' });
      expect((await account.post(orderUrl, '')).json()).toMatchObject({ status: 'invalid' });
      expect(await orders()).not.toContain(orderUrl);
    });

    it('a ready order past its expiry is not finalized (orderNotReady) and is invalid from then on', async () => {
      const account = await openAccount();
      const order = await account.readyOrder('late.example.test');
      const db = new Client({ connectionString: sut.databaseUrl });
      await db.connect();
      try {
        await db.query(`UPDATE acme.orders SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
          order.url.split('/').pop(),
        ]);
      } finally {
        await db.end();
      }
      const keys = await generateEcKeyPair(false);
      const refused = await account.post(order.finalize, { csr: await csrFor(keys, 'late.example.test') });
      expect(refused.status).toBe(403);
      expect(acmeErrorType(refused)).toBe('orderNotReady');
      expect((await account.post(order.url, '')).json()).toMatchObject({ status: 'invalid' });
      const { orders } = (await account.post(`${account.accountUrl}/orders`, '')).json<{
        orders: string[];
      }>();
      expect(orders).not.toContain(order.url);
    });

    it('revokeCert by another account holding valid authorizations for every name of the certificate', async () => {
      const orderer = await openAccount();
      const order = await orderer.readyOrder('revoke-by-authz.example.test');
      const keys = await generateEcKeyPair(false);
      const finalized = await orderer.post(order.finalize, {
        csr: await csrFor(keys, 'revoke-by-authz.example.test'),
      });
      expect(finalized.status).toBe(200);
      const chain = (await orderer.post(finalized.json<{ certificate: string }>().certificate, '')).text;
      const leaf = new X509Certificate(chain);
      const certificate = leaf.raw.toString('base64url');

      // Ordered the name but never proved it: not enough (RFC 8555 7.6).
      const unproved = await openAccount();
      await unproved.order('revoke-by-authz.example.test');
      const revokeUrl = unproved.client.directory.revokeCert;
      const refused = await unproved.post(revokeUrl, { certificate });
      expect(refused.status).toBe(403);
      expect(acmeErrorType(refused)).toBe('unauthorized');

      const holder = await openAccount();
      await holder.readyOrder('revoke-by-authz.example.test');
      const revoked = await holder.post(revokeUrl, { certificate, reason: 4 });
      expect(revoked.status).toBe(200);
      // Revoked indeed: a second request finds it so (OCSP and CRL are the lego rounds' to check).
      expect(acmeErrorType(await holder.post(revokeUrl, { certificate, reason: 4 }))).toBe('alreadyRevoked');
    });

    describe('renewal information (RFC 9773) and profiles', () => {
      /** RFC 9773 4.1: base64url(AKI keyIdentifier) "." base64url(serial). */
      const certIdOf = (pem: string) => {
        const info = parseCertificate(new X509Certificate(pem).raw);
        return ariCertId({
          authorityKeyIdentifierHex: info.authorityKeyIdentifierHex!,
          serialNumberHex: info.serialNumberHex,
        });
      };
      const renewalInfo = async (t: TestTenant, certId: string) =>
        http(`${sut.gatewayUrl}/acme/${t.tenantId}/renewal-info/${certId}`);
      type Window = { suggestedWindow: { start: string; end: string } };
      /** An ACME certificate of `account` for `name` (its order made with `extra`). */
      const issue = async (
        account: Awaited<ReturnType<typeof openAccount>>,
        name: string,
        extra: Record<string, unknown> = {},
      ) => {
        const order = await account.readyOrderWith(extra, name);
        const keys = await generateEcKeyPair(false);
        const finalized = await account.post(order.finalize, { csr: await csrFor(keys, name) });
        expect(finalized.status).toBe(200);
        return (await account.post(finalized.json<{ certificate: string }>().certificate, '')).text;
      };

      it('answers a window inside the last third of validity, spread per certificate, with Retry-After; 404 for an unknown certID', async () => {
        const account = await openAccount(other);
        const directory = (await http(directoryOf(other))).json<{ renewalInfo: string }>();
        expect(directory.renewalInfo).toBe(`${sut.gatewayUrl}/acme/${other.tenantId}/renewal-info`);
        const pems = [await issue(account, 'ari-a.example.test'), await issue(account, 'ari-b.example.test')];
        const starts = new Set<string>();
        for (const pem of pems) {
          const leaf = new X509Certificate(pem);
          const answer = await http(`${directory.renewalInfo}/${certIdOf(pem)}`);
          expect(answer.status).toBe(200);
          expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
          const { start, end } = answer.json<Window>().suggestedWindow;
          const [from, to] = [Date.parse(leaf.validFrom), Date.parse(leaf.validTo)];
          expect(Date.parse(start)).toBeGreaterThanOrEqual(from + ((to - from) * 2) / 3 - 1000);
          expect(Date.parse(end)).toBeGreaterThan(Date.parse(start));
          expect(Date.parse(end)).toBeLessThanOrEqual(to);
          starts.add(start);
        }
        expect(starts.size).toBe(2);
        // RFC 9773's own example certID names no certificate here; nor does a tenant's under another.
        expect((await renewalInfo(other, 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE')).status).toBe(404);
        expect((await renewalInfo(tenant, certIdOf(pems[0]))).status).toBe(404);
        expect((await renewalInfo(other, 'not-a-cert-id')).status).toBe(400);
      });

      it("accepts replaces once, refuses another account's certificate, an unknown one and a second replacement", async () => {
        const owner = await openAccount(other);
        const pem = await issue(owner, 'ari-replace.example.test');
        const certId = certIdOf(pem);
        const identifiers = [{ type: 'dns', value: 'ari-replace.example.test' }];
        const stranger = await openAccount(other);
        const refused = await stranger.post(stranger.newOrder, { identifiers, replaces: certId });
        expect(refused.status).toBe(403);
        expect(acmeErrorType(refused)).toBe('unauthorized');
        const unknown = await owner.post(owner.newOrder, {
          identifiers,
          replaces: 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE',
        });
        expect(acmeErrorType(unknown)).toBe('malformed');

        await issue(owner, 'ari-replace.example.test', { replaces: certId });
        const again = await owner.post(owner.newOrder, { identifiers, replaces: certId });
        expect(again.status).toBe(409);
        expect(acmeErrorType(again)).toBe('alreadyReplaced');
      });

      it('lets exactly one of two orders replacing the same certificate, finalized at once, have it', async () => {
        const owner = await openAccount(other);
        const name = 'ari-race.example.test';
        const certId = certIdOf(await issue(owner, name));
        // Both orders pass newOrder's check: neither has a certificate yet.
        const orders = [
          await owner.readyOrderWith({ replaces: certId }, name),
          await owner.readyOrderWith({ replaces: certId }, name),
        ];
        const bodies = await Promise.all(
          orders.map(async () => ({ csr: await csrFor(await generateEcKeyPair(false), name) })),
        );
        const answers = await Promise.all(orders.map((order, i) => owner.post(order.finalize, bodies[i])));
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        expect(acmeErrorType(answers.find((a) => a.status === 409)!)).toBe('alreadyReplaced');
        const third = await owner.post(owner.newOrder, {
          identifiers: [{ type: 'dns', value: name }],
          replaces: certId,
        });
        expect(acmeErrorType(third)).toBe('alreadyReplaced');
      });

      it('lists profiles in the directory, issues with the chosen one, refuses an unknown one and one over the caps', async () => {
        const put = (name: string, body: unknown) =>
          adminRequest(sut, 'PUT', `/v2/acme/profiles/${name}`, other.bearer, body);
        expect(
          (await put('week', { description: 'Seven days', validityDays: 7, usage: 'Server' })).status,
        ).toBe(200);
        expect(
          (await put('ages', { description: 'Too long', validityDays: 900, usage: 'Server' })).status,
        ).toBe(400);
        const listed = await adminRequest(sut, 'GET', '/v2/acme/profiles', other.bearer);
        expect(listed.json<{ profiles: unknown[] }>().profiles).toEqual([
          { name: 'week', description: 'Seven days', validityDays: 7, usage: 'Server', default: false },
        ]);
        const meta = async () =>
          (await http(directoryOf(other))).json<{ meta: Record<string, unknown> }>().meta;
        expect((await meta()).profiles).toEqual({ week: 'Seven days' });

        const account = await openAccount(other);
        const leaf = new X509Certificate(await issue(account, 'ari-week.example.test', { profile: 'week' }));
        const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
        expect(Math.round(days)).toBe(7);
        const unknown = await account.post(account.newOrder, {
          identifiers: [{ type: 'dns', value: 'ari-week.example.test' }],
          profile: 'fortnight',
        });
        expect(acmeErrorType(unknown)).toBe('invalidProfile');

        expect((await adminRequest(sut, 'DELETE', '/v2/acme/profiles/week', other.bearer)).status).toBe(200);
        expect((await meta()).profiles).toBeUndefined();
      });

      it('replace now moves every window of the CA into the past; the count falls as replacements are issued', async () => {
        const account = await openAccount(other);
        const acmePem = await issue(account, 'ari-drill.example.test');
        const admin = await adminRequest(sut, 'POST', '/v2/certificates', other.bearer, {
          clientId: 'drill',
          commonName: 'drill.example.test',
          organization: 'Example',
          organizationalUnit: 'Ops',
          country: 'DE',
          validityDays: 30,
          usage: 'Server',
          subjectAlternativeNames: ['drill.example.test'],
        });
        expect(admin.status).toBe(200);
        const adminCert = admin.json<{ certificateId: string; certificatePem: string }>();
        const { cas } = (await adminRequest(sut, 'GET', '/v2/ca', other.bearer)).json<{
          cas: { caId: string; role: string; state: string }[];
        }>();
        // The CA that signs the tenant's leaves: its active issuing CA, or (a one-tier tenant) its root.
        const issuing =
          cas.find((ca) => ca.role === 'issuing' && ca.state === 'active') ??
          cas.find((ca) => ca.role === 'root')!;
        const progress = async () =>
          (await adminRequest(sut, 'GET', `/v2/ca/${issuing.caId}/replacement`, other.bearer)).json<{
            total: number;
            replaced: number;
            remaining: number;
          }>();

        const drill = await adminRequest(sut, 'POST', `/v2/ca/${issuing.caId}/replace-leaves`, other.bearer, {
          reason: 'issuing CA retired',
        });
        expect(drill.status).toBe(200);
        const { marked } = drill.json<{ marked: number }>();
        expect(marked).toBeGreaterThanOrEqual(2);
        // Leaves of earlier tests are marked too; one of them was replaced already.
        const before = await progress();
        expect(before.total).toBe(marked);
        expect(before.replaced + before.remaining).toBe(marked);
        for (const pem of [acmePem, adminCert.certificatePem]) {
          const { end } = (await renewalInfo(other, certIdOf(pem))).json<Window>().suggestedWindow;
          expect(Date.parse(end)).toBeLessThanOrEqual(Date.now());
        }
        const detail = await adminRequest(
          sut,
          'GET',
          `/v1/certificates/${adminCert.certificateId}`,
          other.bearer,
        );
        expect(
          Date.parse(detail.json<{ renewalWindow: { end: string } }>().renewalWindow.end),
        ).toBeLessThanOrEqual(Date.now());

        await issue(account, 'ari-drill.example.test', { replaces: certIdOf(acmePem) });
        expect(await progress()).toEqual({
          total: marked,
          replaced: before.replaced + 1,
          remaining: before.remaining - 1,
        });
        const renewed = await adminRequest(
          sut,
          'POST',
          `/v2/certificates/${adminCert.certificateId}/renew`,
          other.bearer,
          { validityDays: 30 },
        );
        expect(renewed.status).toBe(200);
        expect(await progress()).toEqual({
          total: marked,
          replaced: before.replaced + 2,
          remaining: before.remaining - 2,
        });
        const successor = await adminRequest(
          sut,
          'GET',
          `/v1/certificates/${adminCert.certificateId}`,
          other.bearer,
        );
        expect(successor.json<{ successorId?: string }>().successorId).toBe(
          renewed.json<{ newCertificateId: string }>().newCertificateId,
        );
      });
    });

    it('http-01 follows no redirect to a port other than the http-01 and tls-alpn-01 ports', async () => {
      const account = await openAccount();
      const [authz] = await account.order('redirected.example.test');
      const challenge = authz.challenges.find((c) => c.type === 'http-01')!;
      const [elsewherePort] = await freePorts(1);
      const received: string[] = [];
      const elsewhere = createServer((req, res) => {
        received.push(req.url ?? '');
        res.end('nothing to see');
      });
      const redirector = createServer((_req, res) => {
        res.writeHead(302, {
          location: `http://redirected.example.test:${elsewherePort}/admin/delete?all=1`,
        });
        res.end();
      });
      await new Promise<void>((resolve) => elsewhere.listen(elsewherePort, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => redirector.listen(http01Port, '127.0.0.1', resolve));
      try {
        await account.post(challenge.url, {});
        const done = await account.settled(authz.url);
        expect(done.status).toBe('invalid');
        expect(done.challenges.find((c) => c.type === 'http-01')?.error?.type).toBe(
          'urn:ietf:params:acme:error:connection',
        );
        expect(received).toEqual([]);
      } finally {
        await new Promise((resolve) => elsewhere.close(resolve));
        await new Promise((resolve) => redirector.close(resolve));
      }
    });

    it('records an ACME certificate as source acme, keyed by its CSR: renewal asks for a CSR and never hands out a key', async () => {
      const account = await openAccount();
      const created = await account.post(account.newOrder, {
        identifiers: [{ type: 'dns', value: 'renew.example.test' }],
      });
      const { authorizations, finalize } = created.json<{ authorizations: string[]; finalize: string }>();
      const authz = (await account.post(authorizations[0], '')).json<AuthorizationView>();
      const challenge = authz.challenges.find((c) => c.type === 'dns-01')!;
      dns.txt.set('_acme-challenge.renew.example.test', [account.txtFor(challenge.token)]);
      await account.post(challenge.url, {});
      expect((await account.settled(authorizations[0])).status).toBe('valid');
      const csr = Buffer.from(await buildTestCsr(await generateEcKeyPair(false), 'renew.example.test'));
      expect((await account.post(finalize, { csr: csr.toString('base64url') })).status).toBe(200);

      const listed = (await tenant.get('/v2/certificates?q=renew.example.test')).json<{
        certificates: { certificateId: string; source: string; usage: string }[];
      }>().certificates;
      expect(listed).toEqual([expect.objectContaining({ source: 'acme', usage: 'Server' })]);
      const id = listed[0].certificateId;
      const serverKeyed = await tenant.post(`/v1/certificates/${id}/renew`, { validityDays: 30 });
      expect(serverKeyed.status).toBe(400);
      expect(serverKeyed.text).not.toContain('PRIVATE KEY');
      expect(serverKeyed.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual([
        'csrPem',
      ]);
      const newCsr = derToPem(
        await buildTestCsr(await generateEcKeyPair(false), 'renew.example.test'),
        'CERTIFICATE REQUEST',
      );
      const renewed = await tenant.post(`/v2/certificates/${id}/renew`, { validityDays: 30, csrPem: newCsr });
      expect(renewed.status).toBe(200);
      expect(renewed.json()).not.toHaveProperty('privateKeyPem');
    });
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
  // What a real client makes of our ACME answers is the same in every mode: every client and
  // challenge runs on the embedded defaults; on Postgres + NATS the lego rounds that cross the bus
  // to issuance and revocation (issue, renew, revoke) run again, the rest would prove nothing new.
  const allClients = mode === 'embedded';
  const interopIt = allClients ? legoIt : it.skip;

  /** lego with a new EAB key of the tenant (lego wants the flags even for an account it has). */
  const lego = async (
    t: TestTenant,
    args: string[],
    path: string,
    key?: { keyId: string; hmacKey: string },
    env: Record<string, string> = {},
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
      { timeoutMs: 60_000, env: { ...process.env, LEGO_DISABLE_CNAME_SUPPORT: 'true', ...env } },
    );
    return { ...result, key };
  };

  legoIt(
    'lego gets a certificate over http-01, which is an ordinary certificate of the tenant, renews it, and revokes the renewed one',
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

      // `lego renew` renews when the certificate expires within --days (far more than its life here),
      // without the random sleep lego adds for unattended runs.
      const renew = await lego(
        tenant,
        [
          '--domains',
          'app.example.test',
          '--http',
          '--http.port',
          `127.0.0.1:${http01Port}`,
          'renew',
          '--days',
          '100000',
          '--no-random-sleep',
        ],
        path,
        run.key,
      );
      expect({ status: renew.status, stderr: renew.status === 0 ? '' : renew.stderr }).toEqual({
        status: 0,
        stderr: '',
      });
      const renewed = new X509Certificate(
        readFileSync(join(path, 'certificates', 'app.example.test.crt'), 'utf8'),
      );
      expect(renewed.serialNumber).not.toBe(leaf.serialNumber);
      expect(renewed.subjectAltName).toBe('DNS:app.example.test');

      const revoke = await lego(tenant, ['--domains', 'app.example.test', 'revoke'], path, run.key);
      expect(revoke.stderr).toContain('Certificate was revoked');
      expect(revoke.status).toBe(0);
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, renewed.serialNumber);
    },
  );

  interopIt('lego gets a certificate over tls-alpn-01', async () => {
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

  interopIt(
    'lego gets *.wild.test and wild.test over dns-01 (exec provider), and revokes the certificate',
    async () => {
      const path = join(dir, 'lego-dns');
      const execPath = join(dir, 'lego-dns-exec.sh');
      dns.writeExecScript(execPath);
      // The exec provider solves one challenge after the other, EXEC_SEQUENCE_INTERVAL (60 s) apart.
      const execEnv = { EXEC_PATH: execPath, EXEC_SEQUENCE_INTERVAL: '1', EXEC_POLLING_INTERVAL: '1' };
      const domains = ['--domains', '*.wild.test', '--domains', 'wild.test'];
      const dnsFlags = ['--dns', 'exec', '--dns.resolvers', dns.address, '--dns.disable-cp'];
      const run = await lego(tenant, [...domains, ...dnsFlags, 'run'], path, undefined, execEnv);
      expect(run.stderr).toContain('Server responded with a certificate');
      expect(run.status).toBe(0);
      // Both authorizations (the wildcard's and the domain's) put a TXT record at the same name.
      expect(readFileSync(join(dir, 'dns-records'), 'utf8')).toMatch(/present _acme-challenge\.wild\.test\./);

      const certFile = join(path, 'certificates', '_.wild.test.crt');
      const sans = await opensslAsync(['x509', '-noout', '-ext', 'subjectAltName', '-in', certFile]);
      expect(sans.stdout).toMatch(/DNS:\*\.wild\.test, DNS:wild\.test/);
      const leaf = new X509Certificate(readFileSync(certFile));
      expect(leaf.subject).toContain('CN=*.wild.test');

      // lego keeps one certificate under the first domain's name.
      const revoke = await lego(tenant, ['--domains', '*.wild.test', 'revoke'], path, run.key);
      expect({ status: revoke.status, stderr: revoke.status === 0 ? '' : revoke.stderr }).toEqual({
        status: 0,
        stderr: '',
      });
      expect(revoke.stderr).toContain('Certificate was revoked');
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, leaf.serialNumber);
    },
  );

  interopIt('lego cannot get a name outside the policy', async () => {
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

  const certbotIt = hasProgram('certbot') && allClients ? it : it.skip;
  if (!hasProgram('certbot')) console.warn('certbot is not installed: the certbot test is skipped');

  certbotIt(
    'certbot gets a certificate over http-01 (standalone) with EAB, renews it, and revokes the renewed one',
    async () => {
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
      const first = new X509Certificate(readFileSync(certPath));
      expect(first.subjectAltName).toBe('DNS:certbot.example.test');
      expect(first.subject).toContain('CN=certbot.example.test');

      // Renewal as a cron job runs it: the account and the challenge settings come from certbot's
      // renewal configuration; --force-renewal because the certificate is far from expiry, and no
      // random sleep (certbot spreads a non-interactive renewal over minutes).
      const renew = await runProgram(
        'certbot',
        ['renew', ...common, '--force-renewal', '--no-random-sleep-on-renew'],
        {
          timeoutMs: 90_000,
          env: process.env,
        },
      );
      expect({ status: renew.status, stderr: renew.status === 0 ? '' : renew.stderr }).toEqual({
        status: 0,
        stderr: '',
      });
      const leaf = new X509Certificate(readFileSync(certPath));
      expect(leaf.serialNumber).not.toBe(first.serialNumber);
      expect(leaf.subjectAltName).toBe('DNS:certbot.example.test');

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
    },
  );

  const caddyIt = hasProgram('caddy') && allClients ? it : it.skip;
  if (!hasProgram('caddy')) console.warn('caddy is not installed: the Caddy test is skipped');

  caddyIt(
    'Caddy gets a certificate for its site with EAB, serves it, renews it; the replaced one is revoked over the admin API',
    async () => {
      // On the ports the validator uses: Caddy answers http-01 and tls-alpn-01 on them.
      const site = {
        name: 'caddy.example.test',
        directoryUrl: directoryOf(tenant),
        caPem: tenant.caPem,
        eab: await createEabKey(tenant),
        httpPort: http01Port,
        httpsPort: tlsAlpnPort,
      };
      const listedSerials = async () =>
        (await tenant.get('/v1/certificates'))
          .json<{ certificates: { serialNumber: string }[] }>()
          .certificates.map((c) => c.serialNumber.toUpperCase().replace(/^0+/, ''));
      const caddy = await startCaddy(site, join(dir, 'caddy'), true);
      const withLog = (error: Error) => {
        throw new Error(`${error.message}\n${caddy.log().slice(-6000)}`);
      };
      try {
        const first = await eventually(
          () => servedBy(site),
          60_000,
          'Caddy serving its site with a certificate of the tenant',
        ).catch(withLog);
        expect(first.body).toBe('served by caddy');
        expect(await listedSerials()).toContain(first.serial.toUpperCase().replace(/^0+/, ''));
        const renewed = await eventually(
          async () => {
            const now = await servedBy(site);
            return now && now.serial !== first.serial ? now : undefined;
          },
          60_000,
          'Caddy serving a renewed certificate',
        ).catch(withLog);
        expect(await listedSerials()).toContain(renewed.serial.toUpperCase().replace(/^0+/, ''));
        expect(caddy.log()).toContain('renewing certificate');

        // Caddy has no revoke command: the replaced certificate, an ordinary certificate of the
        // tenant, is revoked through the administrative API, and OCSP says so.
        const replaced = (await tenant.get('/v1/certificates'))
          .json<{ certificates: { certificateId: string; serialNumber: string }[] }>()
          .certificates.find(
            (c) =>
              c.serialNumber.toUpperCase().replace(/^0+/, '') ===
              first.serial.toUpperCase().replace(/^0+/, ''),
          );
        const revoked = await tenant.post(`/v1/certificates/${replaced!.certificateId}/revoke`, {
          reason: 'replaced by Caddy',
          reasonCode: 'Superseded',
        });
        expect(revoked.status).toBe(200);
        await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, first.serial);
      } finally {
        await caddy.stop();
      }
    },
  );
});
