/** Object identifiers of the id-pkix-ocsp arc (RFC 6960 4.2.1, 4.4; RFC 9654 for the nonce). */
export const OCSP_ID = {
  /** id-pkix-ocsp-basic: the responseType of a BasicOCSPResponse. */
  basic: '1.3.6.1.5.5.7.48.1.1',
  /** id-pkix-ocsp-nonce: binds a response to its request (RFC 9654 section 2.1). */
  nonce: '1.3.6.1.5.5.7.48.1.2',
  /** id-pkix-ocsp-response: the response types a client accepts (RFC 6960 4.4.3). */
  acceptableResponses: '1.3.6.1.5.5.7.48.1.4',
  /** id-pkix-ocsp-service-locator (RFC 6960 4.4.6), a singleRequestExtension. */
  serviceLocator: '1.3.6.1.5.5.7.48.1.7',
  /** id-pkix-ocsp-pref-sig-algs (RFC 6960 4.4.7). */
  preferredSignatureAlgorithms: '1.3.6.1.5.5.7.48.1.8',
} as const;
