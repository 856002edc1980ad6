import { createECDH, generateKeyPair } from 'node:crypto';
import { IssuedCertificate, KeyAlgorithm, SubjectPublicKey } from '@ca/contracts';
import { derToPem } from '@ca/pki';

/**
 * What issuance certified, with the private key the gateway made for it and never sent anywhere;
 * without one when the caller sent a CSR and kept its key.
 */
export type CertificateWithKey = IssuedCertificate & { privateKeyPem?: string };

export interface LeafKeyPair {
  /** Goes into the issue/renew command: the public half only. */
  subjectPublicKey: SubjectPublicKey;
  /** PKCS#8 (RFC 5958) PEM, handed to the caller once (inline, download link or PKCS#12). */
  privateKeyPem: string;
}

// AlgorithmIdentifier { id-ecPublicKey, prime256v1 } (RFC 5480 section 2.1.1).
const EC_P256_ALGORITHM = '301306072a8648ce3d020106082a8648ce3d030107';
// SubjectPublicKeyInfo (RFC 5480 section 2): SEQUENCE { algorithm, BIT STRING { 0 unused, point } }.
const SPKI_PREFIX = Buffer.from(`3059${EC_P256_ALGORITHM}034200`, 'hex');
// PrivateKeyInfo (RFC 5958 section 2) { version 0, algorithm, OCTET STRING { ECPrivateKey (RFC 5915
// section 3) { version 1, privateKey OCTET STRING (32), [1] publicKey BIT STRING } } }.
const PKCS8_PREFIX = Buffer.from(`308187020100${EC_P256_ALGORITHM}046d306b0201010420`, 'hex');
const PKCS8_PUBLIC_KEY_TAG = Buffer.from('a144034200', 'hex');

/**
 * A fresh P-256 key pair for a certificate whose key the CA generates: made here, in
 * the service that hands it out, so that no private key crosses the bus. The DER is written from
 * the raw key (fixed prefixes, as OpenSSL writes them): generating with ECDH and writing the
 * encodings takes about a fifth of what asking OpenSSL's encoders for SPKI and PKCS#8 costs, on
 * the issuance hot path. Synchronous: a P-256 key takes about 0.1 ms, less than a thread-pool hop.
 */
export function generateLeafKeyPair(): LeafKeyPair {
  const ecdh = createECDH('prime256v1');
  const point = ecdh.generateKeys(); // uncompressed, 65 octets
  const scalar = ecdh.getPrivateKey();
  // The scalar comes without leading zero octets; ECPrivateKey wants it at the curve's length.
  const d = Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]);
  const spki = Buffer.concat([SPKI_PREFIX, point]);
  const pkcs8 = Buffer.concat([PKCS8_PREFIX, d, PKCS8_PUBLIC_KEY_TAG, point]);
  d.fill(0);
  scalar.fill(0);
  return {
    subjectPublicKey: { format: 'spki', der: spki.toString('base64') },
    privateKeyPem: derToPem(pkcs8, 'PRIVATE KEY'),
  };
}

const RSA_MODULUS_BITS: Record<string, number> = {
  [KeyAlgorithm.Rsa2048]: 2048,
  [KeyAlgorithm.Rsa3072]: 3072,
  [KeyAlgorithm.Rsa4096]: 4096,
};

/**
 * A fresh key pair of `algorithm` (docs/api.md#key-algorithms): P-256 on the fast path above;
 * P-384 and RSA through OpenSSL's generator, off the event loop (an RSA-3072 key takes tens to
 * hundreds of milliseconds).
 */
export async function generateLeafKeyPairOf(algorithm: KeyAlgorithm): Promise<LeafKeyPair> {
  if (algorithm === KeyAlgorithm.P256) return generateLeafKeyPair();
  const encoding = {
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  } as const;
  const { publicKey, privateKey } = await new Promise<{ publicKey: Buffer; privateKey: string }>(
    (resolve, reject) => {
      const done = (error: Error | null, publicKey: Buffer, privateKey: string) =>
        error ? reject(error) : resolve({ publicKey, privateKey });
      if (algorithm === KeyAlgorithm.P384)
        generateKeyPair('ec', { namedCurve: 'secp384r1', ...encoding }, done);
      else {
        const modulusLength = RSA_MODULUS_BITS[algorithm];
        generateKeyPair('rsa', { modulusLength, publicExponent: 65537, ...encoding }, done);
      }
    },
  );
  return {
    subjectPublicKey: { format: 'spki', der: publicKey.toString('base64') },
    privateKeyPem: privateKey,
  };
}

/** The reply of issuance with the key the gateway kept. */
export function withPrivateKey(issued: IssuedCertificate, keys: LeafKeyPair): CertificateWithKey {
  return { ...issued, privateKeyPem: keys.privateKeyPem };
}
