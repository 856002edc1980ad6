/** An item of GET /v2/certificates (docs/api.md#search-certificates). */
export interface CertificateItem {
  certificateId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  status: 'Active' | 'Revoked' | 'Expired';
  issuedAt: string;
  expiresAt: string;
  daysUntilExpiration: number;
  subjectAlternativeNames: string[];
  usage: string;
  caId: string;
  source: string;
  revokedAt?: string;
}

export interface Page {
  certificates: CertificateItem[];
  nextCursor: string | null;
}

/** An entry of GET /v2/ca (docs/api.md#list-the-cas). */
export interface CaEntry {
  caId: string;
  role: 'root' | 'issuing';
  serialNumber?: string;
  subject: string;
  notBefore?: string;
  notAfter?: string;
  keyAlgorithm: string;
  state: string;
  certificatePem?: string;
  crossCertificatePem?: string;
  csrPem?: string;
  external?: boolean;
}
