/** Durable event types (past tense). The JetStream subject is `<prefix>.<type>`. */
export const EventType = {
  CaInitialized: 'ca.initialized',
  CaRevoked: 'ca.revoked',
  IssuingCaAdded: 'ca.issuing-added',
  RootRenewed: 'ca.root-renewed',
  ReplaceLeavesRequested: 'ca.replace-leaves-requested',
  CertificateIssued: 'certificate.issued',
  CertificateRevoked: 'certificate.revoked',
  CertificateHoldReleased: 'certificate.hold-released',
  CrlPublished: 'crl.published',
  OcspSignerCertified: 'ocsp-signer.certified',
  TenantUpdated: 'tenant.updated',
} as const;

export type EventType = (typeof EventType)[keyof typeof EventType];
