export { buildCaCertificate, type CaCertificateProfile } from './ca-certificate.builder';
export { buildCaCertificationRequest } from './ca-certification-request.builder';
export { buildOcspSignerCertificationRequest } from './ocsp-signer-request.builder';
export {
  checkUploadedCaChain,
  type UploadedCaChain,
  UploadedCaChainError,
  type UploadedCaChainProblem,
} from './uploaded-ca-chain.check';
export { pemCertificatesToDer } from './pem-bundle';
export type { CertificateInfo } from './certificate-info';
export { parseCertificate } from './certificate.parser';
export { type CertificationRequestInfo, type CsrKeyAlgorithm, parseCertificationRequest } from './csr.parser';
export { assembleCertificateList, type CrlProfile, encodeTbsCertList } from './crl.builder';
export { EncodedCrlEntries, type RevokedCertificateEntry } from './crl-entries';
export { type CrlEntryInfo, type CrlInfo, parseCrl } from './crl.parser';
export { checkCrlIssuedBy, type CrlIssuerCheck } from './crl-issued-by';
export { CRL_REASON, type CrlReasonName, isCrlReasonCode, publishedReasonCode } from './crl-reason';
export type { DistinguishedName, LeafSubject } from './distinguished-name';
export { EC_P256_KEY_ALGORITHM, exportSpkiDer, generateEcKeyPair, importEcPublicKey } from './ec-key-pair';
export { ecdsaSignatureToDer, signTbs } from './ecdsa-sig-value';
export {
  SIGNATURE_ALGORITHMS,
  type SignatureAlgorithm,
  signatureAlgorithmFromDer,
  signatureAlgorithmOf,
  signatureAlgorithmOfCertificate,
} from './signature-algorithm';
export { KEY_PURPOSE_ID, type KeyPurpose } from './extensions';
export {
  type NameConstraints,
  type NameConstraintsInfo,
  nameConstraintsExtension,
  readNameConstraints,
} from './name-constraints';
export {
  buildLeafCertificate,
  type ExtendedKeyUsage,
  type IssuerKey,
  type LeafCertificateProfile,
} from './leaf-certificate.builder';
export {
  buildCertId,
  isOcspHashAlgorithm,
  issuerHashes,
  type OcspCertId,
  type OcspHashAlgorithm,
  ocspHashAlgorithmName,
} from './ocsp-cert-id';
export { type OcspRequestInfo, parseOcspRequest } from './ocsp-request.parser';
export {
  buildOcspErrorResponse,
  buildOcspResponse,
  encodeSingleResponse,
  OCSP_RESPONSE_STATUS,
  type OcspCertStatus,
  type OcspResponseInput,
  type OcspResponseStatus,
  type OcspSingleResponseInput,
} from './ocsp-response.builder';
export {
  type OcspBasicResponseInfo,
  type OcspResponseInfo,
  type OcspSingleResponseInfo,
  parseOcspResponse,
} from './ocsp-response.parser';
export { derToPem, pemToDer } from './pem';
export {
  importLeafPublicKey,
  publicKeyObjectOfSpki,
  type LeafKeyAlgorithm,
  leafKeyAlgorithmOfSpki,
  spkiOfPublicKey,
} from './leaf-public-key';
export { PkiFormatError } from './pki-format.error';
export { buildPkcs12, type Pkcs12Contents, type Pkcs12Encryption } from './pkcs12.builder';
export { exportPrivateKeyPem, generateLeafKeyPair } from './private-key';
export { assertValidSerialNumber, randomSerialNumber, serialFromHex, serialToHex } from './serial-number';
export type { SigningKeys } from './signing-keys';
export { inspectTbsCertList, type TbsCertListSummary } from './tbs-cert-list.inspector';
export { crlEntryKey, tbsCertListEntryKeys } from './crl-entry-keys';
export {
  CUSTOM_EXTENSION_ARC,
  decodeKeyValueExtension,
  encodeKeyValueExtension,
} from './key-value-extension';
export { useProviderForKey } from './crypto-engine';
export {
  BACKDATE_SECONDS,
  backdatedStart,
  type ValidityPeriod,
  validityOfDays,
  validityOfYears,
} from './validity-time';
export {
  assertOcspResponderCertificateLints,
  assertOcspResponseDataLints,
  assertTbsCertificateLints,
  assertTbsCertListLints,
  CERTIFICATE_LINTS,
  CRL_LINTS,
  type Lint,
  type LintFinding,
  lintOcspResponderCertificate,
  lintOcspResponseData,
  lintTbsCertificate,
  lintTbsCertList,
  OCSP_RESPONSE_LINTS,
} from './lint';
export { type CsrRequestedNames, csrRequestedNames } from './csr-requested-names';
export { buildCrossCertificate, type CrossCertificateProfile } from './cross-certificate.builder';
export { crossCertificateProblem } from './cross-certificate.check';
export { issuedByProblem } from './issued-by.check';
export { type AriCertId, ariCertId, parseAriCertId } from './ari-cert-id';
export { type RenewalWindow, renewalWindow } from './renewal-window';
