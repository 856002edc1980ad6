import { DerReader, readSingleElement } from './der-reader';
import { contextConstructed, TAG } from './der-writer';
import { PkiFormatError } from './pki-format.error';

/** The parts of a certificate that CRLs and OCSP copy or hash, as views of the certificate's octets. */
export interface TbsCertificateFields {
  /** The subject Name, whole DER element (RFC 5280 4.1.2.6). */
  subjectDer: Uint8Array;
  /** The SubjectPublicKeyInfo, whole DER element (RFC 5280 4.1.2.7). */
  subjectPublicKeyInfoDer: Uint8Array;
  /**
   * The value of the subjectPublicKey BIT STRING without its tag, length and unused-bits octet:
   * what the key identifier (RFC 5280 4.2.1.2) and the OCSP key hashes (RFC 6960 4.1.1, 4.2.2.3)
   * are computed over.
   */
  subjectPublicKey: Uint8Array;
}

/**
 * Walks the TBSCertificate of a DER certificate (RFC 5280 4.1) just far enough to find the subject
 * and the public key, without decoding the rest. Throws `PkiFormatError` for anything that is not
 * shaped like a certificate up to there. The signature is not checked.
 */
export function readTbsCertificateFields(certificateDer: Uint8Array): TbsCertificateFields {
  const what = 'Certificate';
  const certificate = readSingleElement(certificateDer, what, TAG.sequence);
  const outer = new DerReader(certificateDer, certificate.contentStart, certificate.end);
  const tbs = outer.inside(outer.read('TBSCertificate', TAG.sequence));
  tbs.readOptional('version', contextConstructed(0));
  tbs.read('serialNumber', TAG.integer);
  tbs.read('signature', TAG.sequence);
  tbs.read('issuer', TAG.sequence);
  tbs.read('validity', TAG.sequence);
  const subject = tbs.read('subject', TAG.sequence);
  const spki = tbs.read('subjectPublicKeyInfo', TAG.sequence);
  const spkiReader = tbs.inside(spki);
  spkiReader.read('subjectPublicKeyInfo algorithm', TAG.sequence);
  const bitString = spkiReader.read('subjectPublicKey', TAG.bitString);
  spkiReader.expectEnd('subjectPublicKeyInfo');
  const bits = tbs.contents(bitString);
  if (bits.length < 2 || bits[0] !== 0) {
    throw new PkiFormatError('subjectPublicKey: expected a non-empty BIT STRING of whole octets');
  }
  return {
    subjectDer: tbs.encoding(subject),
    subjectPublicKeyInfoDer: tbs.encoding(spki),
    subjectPublicKey: bits.subarray(1),
  };
}
