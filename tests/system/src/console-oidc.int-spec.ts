import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { Browser, Page, chromium } from 'playwright-core';
import { adminRequest, issueBody } from './support/admin-api';
import { expectAccessible } from './support/axe';
import { eventually } from './support/http';
import { InPage } from './support/in-page';
import {
  API_AUDIENCE,
  CONSOLE_CLIENT_ID,
  IdentityProvider,
  startIdentityProvider,
} from './support/identity-provider';
import { describeIfPrograms, programPath } from './support/programs';
import { Mode, SystemUnderTest, startSystemUnderTest } from './support/system-under-test';

/**
 * The console's OIDC sign-in (docs/console.md#sign-in) in Chromium against a real OpenID Connect
 * provider run by the test (support/identity-provider.ts): authorization code with PKCE (S256) as
 * a public client, the provider's own sign-in pages, and the access token it issues used as the
 * API's bearer token, which the gateway verifies against the provider's JWKS (JWT_JWKS_URI) with
 * its issuer and audience checked. The system trusts no other key: every token in this suite,
 * the one that sets the tenant up included, comes from the provider.
 */
/**
 * One system per run: embedded (what `npm start` runs) by default, and Postgres + NATS (the
 * shipped bus when asked) in CI's pass on those, which would otherwise run the same browser
 * checks on the embedded system a second time.
 */
const MODE: Mode =
  process.env.TEST_REAL_ONLY === '1' && process.env.DATABASE_URL && process.env.NATS_URL
    ? 'postgres+nats'
    : 'embedded';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..', '..');
const OPERATOR = 'operator@tenant-a.example';
const OTHER = 'operator@tenant-b.example';

describeIfPrograms(['chromium'], 'console sign-in through an OpenID Connect provider, in Chromium', () => {
  let idp: IdentityProvider;
  let sut: SystemUnderTest;
  let browser: Browser;
  /** One browser for the whole suite, started while the system starts (closed even if that fails). */
  let launching: Promise<Browser> | undefined;
  const tenantA = randomUUID();
  const tenantB = randomUUID();
  let issuedId: string;

  beforeAll(async () => {
    // The provider warns that its in-memory store, development sign-in pages and a Node.js older
    // than 22 are for development: all three are what this test means to use.
    const warn = console.warn;
    jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      if (!String(args[0]).startsWith('oidc-provider WARNING')) warn(...args);
    });
    // The console suite builds it too; a build replaces files whole, so either may run first.
    if (!existsSync(join(ROOT, 'dist/apps/console/index.html')))
      execFileSync(process.execPath, [join(ROOT, 'apps/console/build.js')], { stdio: 'ignore' });
    launching = chromium.launch({
      executablePath: programPath('chromium'),
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    idp = await startIdentityProvider();
    sut = await startSystemUnderTest(MODE, {
      shippedBus: true,
      env: {
        JWT_JWKS_URI: idp.jwksUri,
        JWT_ISSUER: idp.issuer,
        JWT_AUDIENCE: API_AUDIENCE,
        CONSOLE_OIDC_ISSUER: idp.issuer,
        CONSOLE_OIDC_CLIENT_ID: CONSOLE_CLIENT_ID,
      },
    });
    await idp.configure({ gatewayUrl: sut.gatewayUrl, accounts: { [OPERATOR]: tenantA, [OTHER]: tenantB } });
    // The tenant is set up by an automation client of the same provider (client credentials).
    const automation = await idp.automationToken(OPERATOR);
    const init = await adminRequest(sut, 'POST', '/v1/ca/initialize', automation, {
      commonName: 'OIDC Tenant Root',
      organization: 'Acme Corp',
      country: 'US',
      validityYears: 5,
    });
    expect(init.status).toBe(200);
    const issued = await adminRequest(
      sut,
      'POST',
      '/v1/certificates',
      automation,
      issueBody({ commonName: 'seen-after-oidc-sign-in' }),
    );
    expect(issued.status).toBe(200);
    issuedId = issued.json<{ certificateId: string }>().certificateId;
    browser = await launching;
  });

  afterAll(async () => {
    await (await launching?.catch(() => undefined))?.close();
    await sut?.stop();
    await idp?.stop();
  });

  /** Signs in through the provider's own pages, starting at `path`; answers what the page sent. */
  async function signInThroughProvider(page: Page, login: string, path: string) {
    const authorize: URL[] = [];
    const tokenBodies: URLSearchParams[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin !== idp.issuer) return;
      if (url.pathname === '/auth') authorize.push(url);
      if (url.pathname === '/token') tokenBodies.push(new URLSearchParams(request.postData() ?? ''));
    });
    await page.goto(`${sut.gatewayUrl}/console/${path}`);
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).waitFor();
    await expectAccessible(page, 'sign-in with an identity provider');
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).click();
    // The provider's development sign-in, then its consent page.
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]', { hasText: /continue/i }).click();
    await page.getByTestId('signed-in-tenant').waitFor();
    return { authorize, tokenBodies };
  }

  it('signs in by authorization code with PKCE and uses the access token as the API bearer', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    const allowed = [new URL(sut.gatewayUrl).origin, new URL(sut.pkiUrl).origin, idp.issuer];
    page.on('console', (message) => {
      if (message.type() === 'error' && page.url().startsWith(sut.gatewayUrl))
        problems.push(`console error on ${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`uncaught on ${page.url()}: ${error.message}`));
    // The console's documents reach only these origins. The provider's own pages are its
    // business (its development pages ask for web fonts): refused, so the test needs no network.
    await context.route('**/*', async (route, request) => {
      const url = new URL(request.url());
      if (allowed.includes(url.origin)) return route.continue();
      if (request.frame().url().startsWith(sut.gatewayUrl)) foreign.push(request.url());
      return route.abort();
    });

    const { authorize, tokenBodies } = await signInThroughProvider(page, OPERATOR, 'certificates');
    // Back on the page the sign-in started from, as the provider's account's tenant.
    expect(new URL(page.url()).pathname).toBe('/console/certificates');
    expect(await page.getByTestId('signed-in-tenant').textContent()).toBe(tenantA);
    await page.getByTestId('cert-row').first().waitFor();
    expect(
      await page
        .getByTestId('cert-row')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-certificate-id'))),
    ).toEqual([issuedId]);

    // RFC 7636: an S256 challenge on the way out, the verifier only to the token endpoint.
    expect(authorize).toHaveLength(1);
    expect(authorize[0].searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize[0].searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize[0].searchParams.get('client_id')).toBe(CONSOLE_CLIENT_ID);
    expect(authorize[0].searchParams.has('code_verifier')).toBe(false);
    expect(tokenBodies).toHaveLength(1);
    expect(tokenBodies[0].get('grant_type')).toBe('authorization_code');
    expect(tokenBodies[0].get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(tokenBodies[0].has('client_secret')).toBe(false);

    // The bearer the console holds is the provider's signed access token (RFC 9068), not a copy.
    const token = (await page.evaluate(() =>
      (globalThis as unknown as InPage).sessionStorage.getItem('ca-console-token'),
    ))!;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: idp.keyId });
    expect(decodeJwt(token)).toMatchObject({
      iss: idp.issuer,
      aud: API_AUDIENCE,
      sub: OPERATOR,
      tenantId: tenantA,
      client_id: CONSOLE_CLIENT_ID,
    });

    // A write with that token, from the page: the revocation is audited under the person's name.
    await page.getByTestId('cert-row').first().locator('a').click();
    await page.getByTestId('revoke-button').click();
    await page.getByTestId('revoke-reason').fill('signed in through OIDC');
    await page.getByTestId('revoke-reason-code').selectOption('Superseded');
    await page.getByTestId('revoke-confirm').click();
    await page.getByTestId('certificate-status').getByText('Revoked').waitFor();
    const automation = await idp.automationToken(OPERATOR);
    const revocations = await eventually(
      async () => {
        const audit = await adminRequest(
          sut,
          'GET',
          `/v2/audit?action=certificate.&principal=${encodeURIComponent(OPERATOR)}`,
          automation,
        );
        expect(audit.status).toBe(200);
        const entries = audit.json<{ entries: { action: string; resource: string }[] }>().entries;
        return entries.some((e) => e.action === 'certificate.revoke') ? entries : undefined;
      },
      10_000,
      'the revocation in the audit log under the signed-in person',
    );
    expect(revocations.find((e) => e.action === 'certificate.revoke')!.resource).toContain(issuedId);

    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  });

  it("keeps another account of the provider in its own tenant, the first tenant's deep link included", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInThroughProvider(page, OTHER, '');
    expect(await page.getByTestId('signed-in-tenant').textContent()).toBe(tenantB);
    await page
      .getByText('This tenant has no certificates yet.')
      .or(page.getByTestId('summary-active'))
      .first()
      .waitFor();
    await page.goto(`${sut.gatewayUrl}/console/certificates/${issuedId}`);
    await page.getByTestId('problem').waitFor();
    expect(await page.content()).not.toContain('seen-after-oidc-sign-in');
    await context.close();
  });

  it('refuses a token the provider did not sign (the system trusts only its key set)', async () => {
    const forged = await sut.tokens.sign(tenantA);
    const answer = await adminRequest(sut, 'GET', '/v2/certificates/summary', forged);
    expect(answer.status).toBe(401);
  });
});
