/**
 * `npm run token -- --tenant <uuid> [--sub NAME] [--scope "…"] [--ttl SECONDS]` (docs/api.md#tokens):
 * prints an ES256 token signed by the development key in DATA_DIR. Refuses to run when a real
 * JWT_PUBLIC_KEY / JWT_JWKS_URI is configured, since such tokens would not be accepted anyway.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SignJWT, importPKCS8 } from 'jose';
import { loadConfig } from '@ca/config';
import { isUuid } from '@ca/contracts';
import { loadOrCreateDevelopmentJwtKeys } from '@ca/gateway';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tenant: { type: 'string' },
      sub: { type: 'string', default: 'developer' },
      scope: { type: 'string', default: 'ca:admin certificates:write certificates:read' },
      ttl: { type: 'string', default: '3600' },
    },
  });
  const config = loadConfig();
  if (config.jwt.publicKeyPem || config.jwt.jwksUri) {
    fail('a real JWT_PUBLIC_KEY / JWT_JWKS_URI is configured; get tokens from your identity provider');
  }
  const tenantId = values.tenant ?? randomUUID();
  if (!isUuid(tenantId)) fail('--tenant must be a UUID');
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl < 1) fail('--ttl must be a positive number of seconds');
  if (ttl > config.jwt.maxLifetimeSeconds) {
    fail(
      `--ttl ${ttl} is above the ${config.jwt.maxLifetimeSeconds} s the gateway accepts (JWT_MAX_TOKEN_LIFETIME); such a token would be refused`,
    );
  }
  const keys = loadOrCreateDevelopmentJwtKeys(config.dataDir);
  const token = await new SignJWT({ tenantId, scope: values.scope })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setSubject(values.sub!)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttl)
    .setIssuer(config.jwt.issuer ?? 'ca-manager-development')
    .setAudience(config.jwt.audience ?? 'ca-manager')
    .sign(await importPKCS8(keys.privateKeyPem, 'ES256'));
  process.stdout.write(`${token}\n`);
}

function fail(message: string): never {
  process.stderr.write(`token: ${message}\n`);
  process.exit(1);
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
