import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import type { DistinguishedName } from './distinguished-name';
import {
  basicConstraintsExtension,
  keyIdentifier,
  keyUsageExtension,
  subjectKeyIdentifierExtension,
} from './extensions';
import { encodeName } from './name';
import { signatureAlgorithmOf } from './signature-algorithm';
import type { SigningKeys } from './signing-keys';

/** PKCS#9 extensionRequest (RFC 2985 5.4.2): the extensions the requester asks the CA to include. */
const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/**
 * A PKCS#10 CertificationRequest (RFC 2986 section 4) for an issuing CA whose key we hold and whose
 * certificate another CA makes (docs/api.md#external-root): `subject`, the public key, and an
 * extensionRequest for what our issuing CAs carry — basicConstraints cA TRUE pathLenConstraint 0
 * and keyUsage keyCertSign + cRLSign (both critical, RFC 5280 4.2.1.9, 4.2.1.3) — plus the SKI
 * (RFC 5280 4.2.1.2 method 1), so that the certificate names the key as our CRLs' AKI will.
 * Signed with the key itself (proof of possession, RFC 2986 section 3); DER.
 */
export async function buildCaCertificationRequest(
  subject: DistinguishedName,
  keys: SigningKeys,
): Promise<Uint8Array> {
  const request = new pkijs.CertificationRequest({ version: 0, subject: encodeName(subject) });
  await request.subjectPublicKeyInfo.importKey(keys.publicKey, pkiCrypto());
  const extensions = new pkijs.Extensions({
    extensions: [
      basicConstraintsExtension({ cA: true, pathLenConstraint: 0 }),
      keyUsageExtension(['keyCertSign', 'cRLSign']),
      subjectKeyIdentifierExtension(keyIdentifier(request.subjectPublicKeyInfo)),
    ],
  });
  request.attributes = [new pkijs.Attribute({ type: EXTENSION_REQUEST, values: [extensions.toSchema()] })];
  await request.sign(keys.privateKey, signatureAlgorithmOf(keys.privateKey).hash, pkiCrypto(keys.privateKey));
  // A private key that is not the public key's would make a request no CA accepts.
  if (!(await request.verify(pkiCrypto())))
    throw new RangeError('The private key does not match the public key');
  return new Uint8Array(request.toSchema().toBER(false));
}
