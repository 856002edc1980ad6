/**
 * Decodes the request of `GET {url}/{request}` (RFC 6960 A.1): base64url as docs/ocsp.md
 * asks, and also standard base64 as common clients send it (percent-encoded, or with its `/`
 * left raw, which then arrives split into path segments). Returns undefined when it is neither.
 */
export function decodeOcspGetRequest(segments: string | string[]): Uint8Array | undefined {
  const text = (Array.isArray(segments) ? segments.join('/') : segments).replace(/ /g, '+');
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (standard.length === 0 || !/^[A-Za-z0-9+/]+$/.test(standard) || standard.length % 4 === 1)
    return undefined;
  return new Uint8Array(Buffer.from(standard, 'base64'));
}
