import { sessionOf, tokenFromFragment } from './session';

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: object) => `${part({ alg: 'ES256' })}.${part(claims)}.c2ln`;
const tenantId = '0b7f4c1e-7d1a-4c57-9b1e-3f8f2a4d5e6f';

describe('session', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const exp = now / 1000 + 600;

  it('reads tenant, principal, scopes (scope or scp) and expiry; a pasted "Bearer " is dropped', () => {
    const session = sessionOf(
      `Bearer ${jwt({ tenantId, sub: 'ops', scope: 'ca:admin certificates:read', exp })}`,
      now,
    );
    expect(session).toMatchObject({
      tenantId,
      subject: 'ops',
      scopes: ['ca:admin', 'certificates:read'],
      expiresAt: exp,
    });
    expect(sessionOf(jwt({ tenantId, scp: ['certificates:read'], exp }), now).scopes).toEqual([
      'certificates:read',
    ]);
  });

  it('refuses, in words, what cannot be a session', () => {
    expect(() => sessionOf('not a token', now)).toThrow('not a JWT');
    expect(() => sessionOf(jwt({ sub: 'x', exp }), now)).toThrow('no tenantId');
    expect(() => sessionOf(jwt({ tenantId, exp: now / 1000 - 1 }), now)).toThrow('expired');
  });

  it('takes the token of a scripted sign-in from the fragment', () => {
    expect(tokenFromFragment('#token=a.b.c')).toBe('a.b.c');
    expect(tokenFromFragment('#other=1')).toBeUndefined();
  });
});
