/** Payload of `ca.initialized`: what the public surface needs to serve the CA certificate. */
export interface CaInitializedPayload {
  tenantId: string;
  caId: string;
  /** DER of the CA certificate, base64. */
  certificateDer: string;
  notBefore: string;
  notAfter: string;
  /** The principal (token subject) whose command created the CA; absent in older events. */
  initializedBy?: string;
}
