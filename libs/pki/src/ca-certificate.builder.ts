import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import type { DistinguishedName } from './distinguished-name';
import {
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  keyIdentifier,
  keyUsageExtension,
  subjectKeyIdentifierExtension,
} from './extensions';
import { ALGORITHM_ID } from './algorithm-identifier';
import { assertTbsCertificateLints } from './lint/certificate.linter';
import { encodeName } from './name';
import { assertValidSerialNumber } from './serial-number';
import type { SigningKeys } from './signing-keys';
import { encodeTime } from './validity-time';

export interface CaCertificateProfile {
  subject: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  /** DER INTEGER content octets, e.g. from `randomSerialNumber()`. */
  serialNumber: Uint8Array;
}

/**
 * A self-signed v3 root CA certificate (RFC 5280 4.1), DER-encoded: issuer = subject,
 * ecdsa-with-SHA256, basicConstraints cA (critical, no pathLen), keyUsage keyCertSign and cRLSign
 * (critical), and an SKI with an AKI naming the same key (RFC 5280 4.2.1.1 lets a self-signed
 * certificate omit the AKI; openssl and most path builders use it to link the chain).
 */
export async function buildCaCertificate(
  profile: CaCertificateProfile,
  keys: SigningKeys,
): Promise<Uint8Array> {
  assertValidSerialNumber(profile.serialNumber);
  const notBefore = encodeTime(profile.notBefore);
  const notAfter = encodeTime(profile.notAfter);
  if (notAfter.value <= notBefore.value) throw new RangeError('notAfter must be later than notBefore');

  const certificate = new pkijs.Certificate({
    version: 2, // v3 (RFC 5280 4.1.2.1)
    serialNumber: new asn1js.Integer({ valueHex: profile.serialNumber }),
    issuer: encodeName(profile.subject),
    subject: encodeName(profile.subject),
    notBefore,
    notAfter,
  });
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, pkiCrypto());
  const keyId = keyIdentifier(certificate.subjectPublicKeyInfo);
  certificate.extensions = [
    basicConstraintsExtension({ cA: true }),
    keyUsageExtension(['keyCertSign', 'cRLSign']),
    subjectKeyIdentifierExtension(keyId),
    authorityKeyIdentifierExtension(keyId),
  ];
  // The linter reads the TBSCertificate as it will be signed (docs/lints.md).
  certificate.signature = new pkijs.AlgorithmIdentifier({ algorithmId: ALGORITHM_ID.ecdsaWithSha256 }); // sign() sets it again;
  assertTbsCertificateLints(new Uint8Array(certificate.encodeTBS().toBER(false)));
  await certificate.sign(keys.privateKey, 'SHA-256', pkiCrypto(keys.privateKey));
  // A private key that does not belong to the public key would yield a root nobody can verify.
  if (!(await certificate.verify(certificate, pkiCrypto()))) {
    throw new RangeError('The private key does not match the public key');
  }
  return new Uint8Array(certificate.toSchema(true).toBER(false));
}
