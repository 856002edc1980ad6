import { CaManagerConfig } from '@ca/config';

/**
 * The start-up warning when a real verification key is configured without JWT_ISSUER or
 * JWT_AUDIENCE: both stay optional, but then a token that key signed for any other service is
 * accepted too (RFC 7519 4.1.1, 4.1.3). None with embedded mode's development key, whose tokens
 * only `npm run token` makes. Undefined when there is nothing to say.
 */
export function uncheckedClaimsWarning(jwt: CaManagerConfig['jwt']): string | undefined {
  if (!jwt.publicKeyPem && !jwt.jwksUri) return undefined;
  const unchecked = [
    ...(jwt.issuer ? [] : [{ variable: 'JWT_ISSUER', claim: 'issuer' }]),
    ...(jwt.audience ? [] : [{ variable: 'JWT_AUDIENCE', claim: 'audience' }]),
  ];
  if (unchecked.length === 0) return undefined;
  const variables = unchecked.map((u) => u.variable).join(' and ');
  const claims = unchecked.map((u) => u.claim).join(' and ');
  return `${variables} unset: tokens of any ${claims} signed by the configured key are accepted`;
}
