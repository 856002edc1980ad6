import { JWK, flattenedVerify } from 'jose';
import { EabKey } from '../eab/eab-keys';
import { AcmeProblem, malformed, unauthorized } from './acme-problem';
import { publicPart, thumbprint } from './jws-request';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * RFC 8555 7.3.4: the newAccount payload's `externalAccountBinding` is a JWS, MAC'd with the EAB
 * key (HS256), whose kid is the key id, whose url is the newAccount URL and whose payload is the
 * account key. Returns the key it was made with; the caller binds the key to the new account.
 */
export async function verifyExternalAccountBinding(
  binding: unknown,
  options: {
    tenantId: string;
    newAccountUrl: string;
    accountJwk: JWK;
    findKey: (keyId: string) => Promise<EabKey | undefined>;
  },
): Promise<EabKey> {
  if (binding === undefined) {
    throw new AcmeProblem('externalAccountRequired', 'this server requires an external account binding');
  }
  if (!isRecord(binding) || typeof binding.protected !== 'string' || typeof binding.payload !== 'string') {
    throw malformed('externalAccountBinding must be a flattened JWS');
  }
  if (typeof binding.signature !== 'string') throw malformed('externalAccountBinding has no signature');
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(binding.protected, 'base64url').toString('utf8'));
  } catch {
    throw malformed('externalAccountBinding has an unreadable protected header');
  }
  if (!isRecord(header) || typeof header.kid !== 'string')
    throw malformed('externalAccountBinding needs a kid');
  if (header.alg !== 'HS256') {
    throw new AcmeProblem('badSignatureAlgorithm', 'externalAccountBinding must use HS256');
  }
  if (header.url !== options.newAccountUrl) {
    throw unauthorized('externalAccountBinding url must be the newAccount URL');
  }
  if ('nonce' in header) throw malformed('externalAccountBinding must not carry a nonce');
  const key = await options.findKey(header.kid);
  // Another tenant's key is as unknown here as a made-up one.
  if (!key || key.tenantId !== options.tenantId) throw unauthorized('unknown external account key');
  if (key.disabled) throw unauthorized('this external account key is disabled');
  if (key.boundAccountId) throw unauthorized('this external account key is already bound to an account');
  // A stored key that does not open was altered or moved: as unusable as a wrong MAC.
  if (!key.hmacKey) throw unauthorized('this external account key cannot be used');
  let payload: Uint8Array;
  try {
    ({ payload } = await flattenedVerify(
      { protected: binding.protected, payload: binding.payload, signature: binding.signature },
      Buffer.from(key.hmacKey),
      { algorithms: ['HS256'] },
    ));
  } catch {
    throw unauthorized('the externalAccountBinding MAC does not verify with this key');
  }
  let boundJwk: unknown;
  try {
    boundJwk = JSON.parse(Buffer.from(payload).toString('utf8'));
  } catch {
    throw malformed('the externalAccountBinding payload must be the account JWK');
  }
  if (
    !isRecord(boundJwk) ||
    (await thumbprint(publicPart(boundJwk as JWK))) !== (await thumbprint(options.accountJwk))
  ) {
    throw unauthorized('the externalAccountBinding is for another account key');
  }
  return key;
}
