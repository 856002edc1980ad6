import { X509Certificate, createHash, verify } from 'node:crypto';

import { parseCertificate } from './certificate.parser';
import { DerReader, readSingleElement } from './der-reader';
import { TAG } from './der-writer';
import { PkiFormatError } from './pki-format.error';
import { signatureAlgorithmFromDer, signatureAlgorithmOfCertificate } from './signature-algorithm';
import { readTbsCertificateFields } from './tbs-certificate.reader';
import { inspectTbsCertList, type TbsCertListSummary } from './tbs-cert-list.inspector';

/** What a CRL says when `issuer` issued it, else why not. */
export type CrlIssuerCheck =
  { issuedBy: true; summary: TbsCertListSummary } | { issuedBy: false; reason: string };

/**
 * Whether a DER CertificateList (RFC 5280 5.1) was issued by the CA of `issuerCertificateDer`:
 * one CertificateList of the shape this CA manager writes (signed as the CA's key signs), its
 * signature verifying with the CA's public key (RFC 5280 6.3.3 (f)), its issuer Name equal to the
 * CA's subject (6.3.3 (b)) and its Authority Key Identifier equal to the CA's key identifier
 * (5.2.1). Entries are walked in place, so a CRL of megabytes costs little beyond the signature.
 */
export function checkCrlIssuedBy(crlDer: Uint8Array, issuerCertificateDer: Uint8Array): CrlIssuerCheck {
  let summary: TbsCertListSummary;
  let tbs: Uint8Array;
  let signature: Uint8Array;
  try {
    const list = readSingleElement(crlDer, 'CertificateList', TAG.sequence);
    const reader = new DerReader(crlDer, list.contentStart, list.end);
    tbs = reader.encoding(reader.read('tbsCertList', TAG.sequence));
    const algorithm = reader.encoding(reader.read('signatureAlgorithm', TAG.sequence));
    const value = reader.contents(reader.read('signatureValue', TAG.bitString));
    reader.expectEnd('CertificateList');
    // RFC 5280 5.1.1.2: the algorithm the CA's key signs with, and the same as inside the TBSCertList.
    if (signatureAlgorithmFromDer(algorithm) !== signatureAlgorithmOfCertificate(issuerCertificateDer)) {
      throw new PkiFormatError("signatureAlgorithm: not the one the CA's key signs with");
    }
    if (value.length < 2 || value[0] !== 0) throw new PkiFormatError('signatureValue: unused bits');
    signature = value.subarray(1);
    summary = inspectTbsCertList(tbs);
  } catch (error) {
    return { issuedBy: false, reason: `not a CRL of this CA's form: ${(error as Error).message}` };
  }
  const ca = new X509Certificate(Buffer.from(issuerCertificateDer));
  if (!verify(summary.signatureAlgorithm.nodeHash, tbs, ca.publicKey, signature)) {
    return { issuedBy: false, reason: "signature does not verify with the tenant CA's public key" };
  }
  const { subjectDer } = readTbsCertificateFields(issuerCertificateDer);
  if (!Buffer.from(summary.issuerDer).equals(Buffer.from(subjectDer))) {
    return { issuedBy: false, reason: "issuer Name is not the tenant CA's subject" };
  }
  if (summary.authorityKeyIdentifierHex.toUpperCase() !== keyIdentifierHex(issuerCertificateDer)) {
    return { issuedBy: false, reason: "Authority Key Identifier is not the tenant CA's key identifier" };
  }
  return { issuedBy: true, summary };
}

/** The CA's SKI, or as RFC 5280 4.2.1.2 (1) derives one (SHA-1 of its key), as the CRL builder does. */
function keyIdentifierHex(certificateDer: Uint8Array): string {
  const ski = parseCertificate(certificateDer).subjectKeyIdentifierHex;
  if (ski) return ski.toUpperCase();
  const { subjectPublicKey } = readTbsCertificateFields(certificateDer);
  return createHash('sha1').update(subjectPublicKey).digest('hex').toUpperCase();
}
