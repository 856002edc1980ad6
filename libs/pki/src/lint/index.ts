export { assertTbsCertificateLints, CERTIFICATE_LINTS, lintTbsCertificate } from './certificate.linter';
export { assertTbsCertListLints, CRL_LINTS, lintTbsCertList } from './crl.linter';
export type { Lint, LintFinding } from './lint';
export {
  assertOcspResponderCertificateLints,
  assertOcspResponseDataLints,
  lintOcspResponderCertificate,
  lintOcspResponseData,
  OCSP_RESPONSE_LINTS,
} from './ocsp.linter';
