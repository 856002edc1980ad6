import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import { encodeName } from './name';
import { signatureAlgorithmOf } from './signature-algorithm';
import type { SigningKeys } from './signing-keys';

/**
 * A PKCS#10 CertificationRequest (RFC 2986 section 4) for the OCSP responder's delegated signer
 * key: subject `CN=<commonName>`, the public key, no attributes, signed with the key itself, so
 * that issuance certifies only a key the requester holds (proof of possession, RFC 2986 section 3).
 * The key may live in a PKCS#11 token (pkiCrypto picks its engine); DER.
 */
export async function buildOcspSignerCertificationRequest(
  commonName: string,
  keys: SigningKeys,
): Promise<Uint8Array> {
  const request = new pkijs.CertificationRequest({ version: 0, subject: encodeName({ commonName }) });
  await request.subjectPublicKeyInfo.importKey(keys.publicKey, pkiCrypto());
  await request.sign(keys.privateKey, signatureAlgorithmOf(keys.privateKey).hash, pkiCrypto(keys.privateKey));
  return new Uint8Array(request.toSchema().toBER(false));
}
