import { uncheckedClaimsWarning } from './unchecked-claims-warning';

const jwt = { maxLifetimeSeconds: 86_400, clockSkewSeconds: 60 };

describe('uncheckedClaimsWarning', () => {
  it('warns when a real key is configured without issuer or audience', () => {
    expect(uncheckedClaimsWarning({ ...jwt, publicKeyPem: 'PEM' })).toMatch(
      /^JWT_ISSUER and JWT_AUDIENCE unset: tokens of any issuer and audience/,
    );
    expect(uncheckedClaimsWarning({ ...jwt, jwksUri: 'https://idp/jwks', issuer: 'idp' })).toMatch(
      /^JWT_AUDIENCE unset: tokens of any audience/,
    );
  });

  it('is silent when both are checked, and with the development key of embedded mode', () => {
    expect(
      uncheckedClaimsWarning({ ...jwt, publicKeyPem: 'PEM', issuer: 'i', audience: 'a' }),
    ).toBeUndefined();
    expect(uncheckedClaimsWarning(jwt)).toBeUndefined();
  });
});
