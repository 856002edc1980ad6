export { buildCaCertificate, type CaCertificateProfile } from './ca-certificate.builder';
export type { CertificateInfo } from './certificate-info';
export { parseCertificate } from './certificate.parser';
export type { DistinguishedName } from './distinguished-name';
export { EC_P256_KEY_ALGORITHM, exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
export { KEY_PURPOSE_ID } from './extensions';
export {
  buildLeafCertificate,
  type ExtendedKeyUsage,
  type IssuerKey,
  type LeafCertificateProfile,
} from './leaf-certificate.builder';
export { derToPem, pemToDer } from './pem';
export { PkiFormatError } from './pki-format.error';
export { exportPrivateKeyPem, generateLeafKeyPair } from './private-key';
export { assertValidSerialNumber, randomSerialNumber, serialFromHex, serialToHex } from './serial-number';
export type { SigningKeys } from './signing-keys';
