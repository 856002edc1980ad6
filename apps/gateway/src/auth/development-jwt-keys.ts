import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';

export interface DevelopmentJwtKeys {
  privateKeyPem: string;
  publicKeyPem: string;
}

/**
 * docs/api.md#tokens: with no JWT_PUBLIC_KEY/JWT_JWKS_URI, tokens are verified with a
 * development ES256 key pair kept in DATA_DIR (owner-only), which `npm run token` signs with.
 */
export function loadOrCreateDevelopmentJwtKeys(dataDir: string): DevelopmentJwtKeys {
  const dir = join(dataDir, 'keys');
  const privatePath = join(dir, 'jwt-development.key');
  const publicPath = join(dir, 'jwt-development.pub');
  if (!existsSync(privatePath) || !existsSync(publicPath)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeAtomically(publicPath, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
    writeAtomically(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  }
  return { privateKeyPem: readFileSync(privatePath, 'utf8'), publicKeyPem: readFileSync(publicPath, 'utf8') };
}

function writeAtomically(path: string, content: string, mode: number): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode });
  renameSync(temp, path);
}
