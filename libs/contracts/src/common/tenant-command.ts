/** Every command carries the tenant of the token and the principal for the audit trail. */
export interface TenantCommand {
  tenantId: string;
  principal: string;
  requestId?: string;
}

/**
 * The public key a certificate is made for. The private key never crosses the bus: either the
 * gateway generates the pair and sends only the public half (`spki`), or the caller keeps its key
 * and sends a PKCS#10 request (`pkcs10`, docs/api.md#csr-issuance); issuance then takes the key
 * from it after checking its self-signature (RFC 2986 section 3), and nothing else.
 */
export type SubjectPublicKey =
  | {
      format: 'spki';
      /** DER SubjectPublicKeyInfo (RFC 5280 4.1.2.7) of a P-256 key (RFC 5480 section 2), base64. */
      der: string;
    }
  | {
      format: 'pkcs10';
      /** DER CertificationRequest (RFC 2986 section 4.2), base64. */
      der: string;
    };

/** Commands that create a certificate (issue, renew): the key it certifies. */
export interface KeyedCommand {
  subjectPublicKey: SubjectPublicKey;
}
