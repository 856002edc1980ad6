import { AcmeHttpRequest, CaError, ErrorCode } from '@ca/contracts';
import { AcmeRateLimiter, InMemoryAcmeRateLimiter } from './acme-rate-limiter';
import { AcmeProblem } from './acme-problem';
import { AcmeServer, asProblem } from './acme-server';
import { AccountStore } from '../stores/account.store';
import { NonceStore } from './nonce-store';

const TENANT = '3f9a6c1e-2b4d-4e8f-9a1c-5d7e6f8a9b0c';
const request = (overrides: Partial<AcmeHttpRequest> = {}): AcmeHttpRequest => ({
  tenantId: TENANT,
  method: 'GET',
  path: '/directory',
  body: '',
  clientAddress: '192.0.2.1',
  ...overrides,
});

function server(perSource = 100, limiter: AcmeRateLimiter = new InMemoryAcmeRateLimiter()) {
  let issued = 0;
  const nonces = {
    issue: async () => `nonce-${++issued}`,
    consume: async () => false,
  } as unknown as NonceStore;
  return new AcmeServer({
    accounts: {} as AccountStore,
    nonces,
    tenants: { has: async (tenantId) => tenantId === TENANT },
    publicUrl: 'https://ca.test',
    limiter,
    limits: { perTenant: 1000, perSource, perAccount: 1000, newOrdersPerAccount: 1000 },
    resources: [[/^\/new-account$/, { key: 'jwk', handle: async () => ({ status: 201 }) }]],
    onInternalError: () => undefined,
    renewalInfo: async () => ({ status: 200, body: {} }),
    profiles: async () => ({}),
  });
}

const body = (answer: { body: string }) => JSON.parse(Buffer.from(answer.body, 'base64').toString('utf8'));

describe('AcmeServer', () => {
  it('serves the directory with the index link and no-store', async () => {
    const answer = await server().handle(request());
    expect(answer.status).toBe(200);
    expect(body(answer).newNonce).toBe(`https://ca.test/acme/${TENANT}/new-nonce`);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers.link).toContain(`<https://ca.test/acme/${TENANT}/directory>;rel="index"`);
  });

  it('answers newNonce with a fresh Replay-Nonce: 200 to HEAD, 204 to GET', async () => {
    const acme = server();
    const head = await acme.handle(request({ method: 'HEAD', path: '/new-nonce' }));
    const get = await acme.handle(request({ method: 'GET', path: '/new-nonce' }));
    expect([head.status, get.status]).toEqual([200, 204]);
    expect(head.headers['replay-nonce']).not.toBe(get.headers['replay-nonce']);
  });

  it('answers rateLimited with Retry-After past the per-source limit', async () => {
    const acme = server(1);
    expect((await acme.handle(request())).status).toBe(200);
    const limited = await acme.handle(request());
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('application/problem+json');
    expect(body(limited).type).toBe('urn:ietf:params:acme:error:rateLimited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await acme.handle(request({ clientAddress: '192.0.2.2' }))).status).toBe(200);
  });

  it('answers what the limiter answers when it cannot count (503 serverInternal with Retry-After)', async () => {
    const unavailable = new AcmeProblem('serverInternal', 'cannot count', 503, { 'retry-after': '5' });
    const answer = await server(100, { take: () => Promise.reject(unavailable) }).handle(request());
    expect(answer.status).toBe(503);
    expect(body(answer).type).toBe('urn:ietf:params:acme:error:serverInternal');
    expect(answer.headers['retry-after']).toBe('5');
  });

  it('tells the gateway which requests were reads (not audited): GET, HEAD and POST-as-GET, not a POST with a payload', async () => {
    const acme = server();
    const jws = (payload: string) =>
      Buffer.from(JSON.stringify({ protected: 'e30', payload, signature: 'c2ln' })).toString('base64');
    const post = (payload: string) =>
      acme.handle(
        request({
          method: 'POST',
          path: '/new-account',
          contentType: 'application/jose+json',
          body: jws(payload),
        }),
      );
    expect((await acme.handle(request())).readOnly).toBe(true);
    expect((await acme.handle(request({ method: 'HEAD', path: '/new-nonce' }))).readOnly).toBe(true);
    expect((await post('')).readOnly).toBe(true);
    expect((await post('e30')).readOnly).toBeUndefined();
    const unreadable = await acme.handle(
      request({ method: 'POST', path: '/new-account', contentType: 'application/jose+json', body: 'AAAA' }),
    );
    expect(unreadable.readOnly).toBeUndefined();
  });

  it('refuses a POST that is not application/jose+json, and unknown paths', async () => {
    const acme = server();
    const post = await acme.handle(
      request({ method: 'POST', path: '/new-account', contentType: 'application/json' }),
    );
    expect(post.status).toBe(415);
    expect(body(post).type).toBe('urn:ietf:params:acme:error:malformed');
    expect(post.headers['replay-nonce']).toBeDefined();
    const get = await acme.handle(request({ method: 'GET', path: '/new-account' }));
    expect(get.status).toBe(405);
    expect((await acme.handle(request({ path: '/no-such-resource' }))).status).toBe(404);
    expect((await acme.handle(request({ tenantId: 'bad tenant' }))).status).toBe(404);
  });

  it('answers 404 with no nonce under a tenant without an ACME server, and counts nothing for it', async () => {
    const counted: string[] = [];
    const acme = server(100, { take: async (key) => void counted.push(key) });
    for (const tenantId of ['9c1b2a3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', 'not-a-tenant']) {
      for (const [method, path] of [
        ['GET', '/directory'],
        ['HEAD', '/new-nonce'],
        ['POST', '/new-account'],
      ]) {
        const answer = await acme.handle(request({ tenantId, method, path }));
        expect(answer.status).toBe(404);
        expect(answer.headers['replay-nonce']).toBeUndefined();
        expect(answer.headers.link).toBeUndefined();
      }
    }
    expect(counted).toEqual([]);
  });
});

describe('asProblem', () => {
  it("answers a usage the tenant's policy leaves out as unauthorized, with the admin API's code", () => {
    const problem = asProblem(
      new CaError(
        ErrorCode.UsageNotAllowedByPolicy,
        "The tenant's issuance policy allows usage Client only.",
        [{ field: 'usage', message: 'must be allowed by the issuance policy (Client)' }],
      ),
      () => {
        throw new Error('not an internal error');
      },
    );
    expect(problem).toMatchObject({ type: 'unauthorized', status: 403, code: 'USAGE_NOT_ALLOWED_BY_POLICY' });
    expect(problem.detail).toContain('Client only');
  });

  it.each([
    [ErrorCode.NameNotAllowedByPolicy, 'rejectedIdentifier', 400],
    [ErrorCode.IssuingCaRevoked, 'unauthorized', 403],
    [ErrorCode.CsrKeyNotAllowed, 'badCSR', 400],
    [ErrorCode.CsrSignatureInvalid, 'badCSR', 400],
    [ErrorCode.CsrKeyCompromised, 'badCSR', 400],
  ])('answers %s as %s, with the code and a detail, without calling it internal', (code, type, status) => {
    const problem = asProblem(new CaError(code, 'The reason, in words.'), () => {
      throw new Error('not an internal error');
    });
    expect(problem).toMatchObject({ type, status, code });
    expect(problem.detail.length).toBeGreaterThan(10);
  });

  it('answers the database out of reach as 503 with Retry-After, anything else unexpected as 500, logging both', () => {
    const logged: string[] = [];
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(asProblem(refused, () => logged.push('refused'))).toMatchObject({
      type: 'serverInternal',
      status: 503,
      headers: { 'retry-after': '5' },
    });
    expect(asProblem(new TypeError('x is undefined'), () => logged.push('bug'))).toMatchObject({
      type: 'serverInternal',
      status: 500,
    });
    expect(logged).toEqual(['refused', 'bug']);
  });
});
