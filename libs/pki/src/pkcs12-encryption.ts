import { createCipheriv, createHmac, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

import { TAG, derObjectIdentifier, derOctetString, derSequence, derUnsignedInteger } from './der-writer';
import { PKCS12_KDF_PURPOSE, bmpPassword, pkcs12Kdf } from './pkcs12-kdf';

/**
 * How a PKCS#12 is protected. `modern`: PBES2 (RFC 8018 6.2) with PBKDF2/HMAC-SHA256 and
 * AES-256-CBC, HMAC-SHA256 MAC, what OpenSSL 3 writes. `legacy`: pbeWithSHAAnd3-KeyTripleDES-CBC
 * (RFC 7292 appendix C) and a SHA-1 MAC, for key stores that predate PBES2 (old Windows, the macOS
 * Keychain, Java before 8u301).
 */
export type Pkcs12Encryption = 'modern' | 'legacy';

/** OpenSSL's default iteration count (PKCS12_DEFAULT_ITER) for both the encryption and the MAC. */
export const PKCS12_ITERATIONS = 2048;

/**
 * OpenSSL's salt length for PBKDF2 and for the MAC (PKCS5_SALT_LEN, PKCS12_SALT_LEN). GnuTLS refuses
 * salts much longer than that ("memory buffer is too short"), such as the 64 octets pkijs writes.
 */
const SALT_OCTETS = 8;

const OID = {
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
  hmacWithSha256: '1.2.840.113549.2.9',
  aes256Cbc: '2.16.840.1.101.3.4.1.42',
  pbeWithShaAnd3KeyTripleDesCbc: '1.2.840.113549.1.12.1.3',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

const NULL = Uint8Array.of(TAG.null, 0);
const pbkdf2Async = promisify(pbkdf2);

const algorithmIdentifier = (oid: string, parameters: Uint8Array) =>
  derSequence(derObjectIdentifier(oid), parameters);
const integer = (value: number) => derUnsignedInteger(BigInt(value));

export interface Pkcs12Ciphertext {
  /** The AlgorithmIdentifier, with the salt (and IV) it was made with. */
  algorithm: Uint8Array;
  ciphertext: Uint8Array;
}

/** Encrypts a key bag or a SafeContents under `password` with a fresh salt. */
export async function pkcs12Encrypt(
  encryption: Pkcs12Encryption,
  password: string,
  plaintext: Uint8Array,
): Promise<Pkcs12Ciphertext> {
  const salt = randomBytes(SALT_OCTETS);
  if (encryption === 'legacy') {
    // RFC 7292 appendix C: key and IV both from the appendix B derivation over the BMPString password.
    const bmp = bmpPassword(password);
    const key = pkcs12Kdf('sha1', PKCS12_KDF_PURPOSE.key, bmp, salt, PKCS12_ITERATIONS, 24);
    const iv = pkcs12Kdf('sha1', PKCS12_KDF_PURPOSE.iv, bmp, salt, PKCS12_ITERATIONS, 8);
    return {
      algorithm: algorithmIdentifier(
        OID.pbeWithShaAnd3KeyTripleDesCbc,
        derSequence(derOctetString(salt), integer(PKCS12_ITERATIONS)),
      ),
      ciphertext: encrypt('des-ede3-cbc', key, iv, plaintext),
    };
  }
  // RFC 8018 6.2 PBES2; the password as its UTF-8 octets, as OpenSSL uses it there.
  const iv = randomBytes(16);
  const key = await pbkdf2Async(Buffer.from(password, 'utf8'), salt, PKCS12_ITERATIONS, 32, 'sha256');
  const pbkdf2Parameters = derSequence(
    derOctetString(salt),
    integer(PKCS12_ITERATIONS),
    algorithmIdentifier(OID.hmacWithSha256, NULL),
  );
  return {
    algorithm: algorithmIdentifier(
      OID.pbes2,
      derSequence(
        algorithmIdentifier(OID.pbkdf2, pbkdf2Parameters),
        algorithmIdentifier(OID.aes256Cbc, derOctetString(iv)),
      ),
    ),
    ciphertext: encrypt('aes-256-cbc', key, iv, plaintext),
  };
}

/**
 * MacData (RFC 7292 4) over the AuthenticatedSafe octets: HMAC with the key of appendix B.2 (purpose
 * 3), SHA-256 for `modern`, SHA-1 for `legacy` (all that pre-2.0 readers know).
 */
export function pkcs12MacData(
  encryption: Pkcs12Encryption,
  password: string,
  content: Uint8Array,
): Uint8Array {
  const hash = encryption === 'legacy' ? 'sha1' : 'sha256';
  const salt = randomBytes(SALT_OCTETS);
  const key = pkcs12Kdf(
    hash,
    PKCS12_KDF_PURPOSE.mac,
    bmpPassword(password),
    salt,
    PKCS12_ITERATIONS,
    hash === 'sha1' ? 20 : 32,
  );
  const mac = createHmac(hash, key).update(content).digest();
  return derSequence(
    derSequence(algorithmIdentifier(hash === 'sha1' ? OID.sha1 : OID.sha256, NULL), derOctetString(mac)),
    derOctetString(salt),
    integer(PKCS12_ITERATIONS),
  );
}

function encrypt(cipher: string, key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const encryptor = createCipheriv(cipher, key, iv);
  return Buffer.concat([encryptor.update(plaintext), encryptor.final()]);
}
