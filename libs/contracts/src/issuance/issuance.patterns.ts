/** Request/reply subjects answered by the issuance context: `<context>.<aggregate>.<verb>`. */
export const IssuancePattern = {
  InitializeCa: 'issuance.ca.initialize',
  InitializeCaV2: 'issuance.ca.initialize-v2',
  ListCas: 'issuance.ca.list',
  /** docs/api.md#revoke-an-issuing-ca */
  RevokeCa: 'issuance.ca.revoke',
  /** docs/api.md#revoke-a-cross-certificate */
  RevokeCrossCertificate: 'issuance.ca.revoke-cross',
  /** docs/api.md#add-an-issuing-ca */
  AddIssuingCa: 'issuance.ca.add-issuing',
  /** docs/api.md#external-root: the corporate root's certificate for a pending issuing CA. */
  UploadCaCertificate: 'issuance.ca.upload-certificate',
  /** docs/api.md#replace-now: every Active leaf of a CA gets a renewal window already begun. */
  ReplaceLeaves: 'issuance.ca.replace-leaves',
  /** docs/api.md#replace-now: how many of those leaves were replaced. */
  GetReplacement: 'issuance.ca.replacement',
  /** acme's renewalInfo (RFC 9773): a certificate by AKI and serial, with its window. */
  GetRenewalInfo: 'issuance.certificate.renewal-info',
  /** docs/api.md#renew-the-root */
  RenewRoot: 'issuance.ca.renew-root',
  IssueCertificate: 'issuance.certificate.issue',
  RenewCertificate: 'issuance.certificate.renew',
  IssueCertificateV2: 'issuance.certificate.issue-v2',
  /**
   * A finalized ACME order's certificate: issue-v2 for a key the acme service took from the order's
   * CSR. Outside `issuance.certificate.*`, so only the acme service's bus user may ask it: the
   * certificate is recorded as `acme` and CSR-keyed (renewed with a CSR only).
   */
  IssueAcmeCertificate: 'issuance.acme.issue-certificate',
  RenewCertificateV2: 'issuance.certificate.renew-v2',
  RevokeCertificate: 'issuance.certificate.revoke',
  ReleaseCertificateHold: 'issuance.certificate.release-hold',
  GetCertificate: 'issuance.certificate.get',
  ListCertificates: 'issuance.certificate.list',
  ListExpiringCertificates: 'issuance.certificate.list-expiring',
  /** docs/api.md#search-certificates: one keyset page of the filtered inventory. */
  SearchCertificates: 'issuance.certificate.search',
  /** docs/api.md#export-certificates (and `GET /v1/certificates`): the next chunk, already formatted. */
  ExportCertificates: 'issuance.certificate.export-chunk',
  /** docs/api.md#certificate-summary: counts by status and expiry window. */
  SummarizeCertificates: 'issuance.certificate.summary',
  /** docs/api.md#revoke-matching: count, or start a job that revokes every match. */
  RevokeMatching: 'issuance.certificate.revoke-matching',
  /** docs/api.md#jobs: a revoke-matching job's progress. */
  GetRevocationJob: 'issuance.certificate.job',
  /** The gateway only: the certificates a revoke-matching job revoked, to audit each one. */
  GetJobRevocations: 'issuance.certificate.job-revocations',
  /** Operator report across tenants (`npm run ops -- expiring`); never reachable from the admin API. */
  ExpiryReport: 'issuance.report.expiring',
  SignCrl: 'issuance.crl.sign',
  /** Revocation only: the revocations recorded for one CA, to reconcile its ledger after a refused CRL. */
  CrlRevocations: 'issuance.crl.revocations',
  IssueOcspSigner: 'issuance.ocsp-signer.issue',
  /** The tenant's issuance policy (docs/api.md#issuance-policy): replace or remove, and read. */
  SetIssuancePolicy: 'issuance.policy.set',
  GetIssuancePolicy: 'issuance.policy.get',
} as const;

export type IssuancePattern = (typeof IssuancePattern)[keyof typeof IssuancePattern];

/**
 * How long the gateway waits for a request that makes CA keys (initialize, add an issuing CA,
 * renew the root, a policy change that makes a new issuing CA): two RSA-4096 key pairs can take
 * many seconds on a busy machine, and giving up at the default wait would answer 503 while the CA
 * is created anyway, so the client's retry would meet 409.
 */
export const KEY_GENERATION_TIMEOUT_MS = 60_000;
