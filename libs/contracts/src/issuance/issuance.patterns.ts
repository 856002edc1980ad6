/** Request/reply subjects answered by the issuance context: `<context>.<aggregate>.<verb>`. */
export const IssuancePattern = {
  InitializeCa: 'issuance.ca.initialize',
  IssueCertificate: 'issuance.certificate.issue',
  RenewCertificate: 'issuance.certificate.renew',
  RevokeCertificate: 'issuance.certificate.revoke',
  GetCertificate: 'issuance.certificate.get',
  ListCertificates: 'issuance.certificate.list',
  ListExpiringCertificates: 'issuance.certificate.list-expiring',
  SignCrl: 'issuance.crl.sign',
  IssueOcspSigner: 'issuance.ocsp-signer.issue',
} as const;

export type IssuancePattern = (typeof IssuancePattern)[keyof typeof IssuancePattern];
