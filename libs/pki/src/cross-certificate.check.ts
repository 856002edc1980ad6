import { X509Certificate } from 'node:crypto';

/**
 * Why `crossDer` does not bind `newRootDer` to `previousRootDer` (docs/api.md#renew-the-root), or
 * undefined when it does: the new root is self-signed; the cross certificate names the previous
 * root as issuer (name and key identifier) and verifies with its key; and it certifies exactly the
 * new root's subject and public key. What arrives from the bus is input: a consumer publishes
 * nothing of a new root that fails this.
 */
export function crossCertificateProblem(
  previousRootDer: Uint8Array,
  newRootDer: Uint8Array,
  crossDer: Uint8Array,
): string | undefined {
  let previous: X509Certificate;
  let root: X509Certificate;
  let cross: X509Certificate;
  try {
    previous = new X509Certificate(previousRootDer);
    root = new X509Certificate(newRootDer);
    cross = new X509Certificate(crossDer);
  } catch {
    return 'a certificate does not decode';
  }
  if (!root.ca || !cross.ca) return 'not a CA certificate';
  if (!root.checkIssued(root) || !root.verify(root.publicKey)) return 'the new root is not self-signed';
  if (!cross.checkIssued(previous) || !cross.verify(previous.publicKey)) {
    return 'the cross certificate is not signed by the previous root';
  }
  if (cross.subject !== root.subject)
    return "the cross certificate names another subject than the new root's";
  const spki = (certificate: X509Certificate) =>
    certificate.publicKey.export({ type: 'spki', format: 'der' });
  if (!spki(cross).equals(spki(root)))
    return "the cross certificate certifies another key than the new root's";
  return undefined;
}
