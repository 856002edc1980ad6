import { X509Certificate } from 'node:crypto';

/**
 * Why `der` is not a CA certificate issued by `issuerDer`, or undefined when it is: it decodes, is
 * a CA, names the issuer's subject as its issuer and its signature verifies with the issuer's key
 * (RFC 5280 6.1.3 (a)(1), (a)(4)). What arrives from the bus is input: a consumer records no CA
 * its tenant's root did not sign.
 */
export function issuedByProblem(issuerDer: Uint8Array, der: Uint8Array): string | undefined {
  let issuer: X509Certificate;
  let certificate: X509Certificate;
  try {
    issuer = new X509Certificate(issuerDer);
    certificate = new X509Certificate(der);
  } catch {
    return 'a certificate does not decode';
  }
  if (!certificate.ca) return 'not a CA certificate';
  if (!certificate.checkIssued(issuer) || !certificate.verify(issuer.publicKey)) {
    return "the certificate is not signed by the tenant's root";
  }
  return undefined;
}
