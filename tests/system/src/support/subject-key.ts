import { generateKeyPairSync } from 'node:crypto';
import { SubjectPublicKey } from '@ca/contracts';

/** The public half of a fresh P-256 key, as the gateway puts it into issue and renew commands. */
export function freshSubjectPublicKey(): SubjectPublicKey {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { format: 'spki', der: publicKey.export({ type: 'spki', format: 'der' }).toString('base64') };
}
