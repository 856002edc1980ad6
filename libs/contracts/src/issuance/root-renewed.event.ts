/**
 * Payload of `ca.root-renewed` (docs/api.md#renew-the-root): the tenant has a new root, with the
 * cross certificate its previous root signed. Recorded just before the `ca.issuing-added` of the
 * new issuing CA under it. Consumers check the cross certificate against the previous root they
 * hold before they publish anything of the new root.
 */
export interface RootRenewedPayload {
  tenantId: string;
  /** The new root. */
  caId: string;
  /** DER of its self-signed certificate, base64. */
  certificateDer: string;
  notBefore: string;
  notAfter: string;
  /** docs/api.md#key-algorithms. */
  keyAlgorithm: string;
  /** The root it replaces, which signed the cross certificate and is now retired. */
  previousRootCaId: string;
  /** DER of the cross certificate (the new root's subject and key, issued by the previous root), base64. */
  crossCertificateDer: string;
  renewedBy?: string;
}
