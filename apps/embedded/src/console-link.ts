import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, importPKCS8 } from 'jose';
import { CaManagerConfig } from '@ca/config';
import { isUuid } from '@ca/contracts';
import { loadOrCreateDevelopmentJwtKeys } from '@ca/gateway';

/** How long the start-up link signs the developer in (capped by JWT_MAX_TOKEN_LIFETIME). */
const LINK_TOKEN_TTL_SECONDS = 8 * 3600;

/**
 * The console link `npm start` prints (docs/console.md#sign-in). With the development key it
 * carries a token in the fragment (`#token=`, never sent to a server) for the development tenant,
 * whose id is kept in DATA_DIR so that the link of every start opens the same tenant. With tokens
 * of an identity provider it is the bare console address.
 */
export async function consoleLink(config: CaManagerConfig): Promise<string> {
  const url = `${config.gatewayPublicUrl}/console/`;
  if (config.jwt.publicKeyPem || config.jwt.jwksUri) return url;
  const file = join(config.dataDir, 'development-tenant');
  const stored = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  const tenantId = isUuid(stored) ? stored : randomUUID();
  if (tenantId !== stored) writeFileSync(file, `${tenantId}\n`, { mode: 0o600 });
  const keys = loadOrCreateDevelopmentJwtKeys(config.dataDir);
  const token = await new SignJWT({ tenantId, scope: 'ca:admin certificates:write certificates:read' })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setSubject('developer')
    .setIssuedAt()
    .setExpirationTime(
      Math.floor(Date.now() / 1000) + Math.min(LINK_TOKEN_TTL_SECONDS, config.jwt.maxLifetimeSeconds),
    )
    .setIssuer(config.jwt.issuer ?? 'ca-manager-development')
    .setAudience(config.jwt.audience ?? 'ca-manager')
    .sign(await importPKCS8(keys.privateKeyPem, 'ES256'));
  return `${url}#token=${token}`;
}
