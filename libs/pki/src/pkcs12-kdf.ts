import { createHash } from 'node:crypto';

/** The purpose byte ("ID") of RFC 7292 B.3: what the derived octets are for. */
export const PKCS12_KDF_PURPOSE = { key: 1, iv: 2, mac: 3 } as const;
export type Pkcs12KdfPurpose = (typeof PKCS12_KDF_PURPOSE)[keyof typeof PKCS12_KDF_PURPOSE];

/** Output length u and block length v of the hashes RFC 7292 B.2 is used with here. */
const HASH_SIZES = { sha1: { u: 20, v: 64 }, sha256: { u: 32, v: 64 } } as const;
export type Pkcs12KdfHash = keyof typeof HASH_SIZES;

/**
 * The password as RFC 7292 B.1 feeds it to the key derivation: a BMPString (UTF-16 big-endian)
 * with two trailing zero octets, as OpenSSL makes it from a UTF-8 password.
 */
export function bmpPassword(password: string): Buffer {
  return Buffer.from(`${password}\0`, 'utf16le').swap16();
}

/**
 * The PKCS#12 key derivation of RFC 7292 appendix B.2, for any purpose byte. pkijs has it only for
 * the MAC key (purpose 3, and not exported); the legacy pbeWithSHAAnd3-KeyTripleDES-CBC profile also
 * needs the key (1) and IV (2) derivations.
 */
export function pkcs12Kdf(
  hash: Pkcs12KdfHash,
  purpose: Pkcs12KdfPurpose,
  password: Buffer,
  salt: Uint8Array,
  iterations: number,
  length: number,
): Buffer {
  const { u, v } = HASH_SIZES[hash];
  const D = Buffer.alloc(v, purpose);
  const I = Buffer.concat([repeatToBlocks(salt, v), repeatToBlocks(password, v)]);
  const output: Buffer[] = [];
  for (let produced = 0; produced < length; produced += u) {
    let A = createHash(hash).update(D).update(I).digest();
    for (let round = 1; round < iterations; round++) A = createHash(hash).update(A).digest();
    output.push(A);
    // Step 6: B = A repeated to v octets; every v-octet block of I becomes (I_j + B + 1) mod 2^(8v).
    const B = repeatToBlocks(A, v);
    for (let block = 0; block < I.length; block += v) {
      let carry = 1;
      for (let index = v - 1; index >= 0; index--) {
        const sum = I[block + index] + B[index] + carry;
        I[block + index] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(output).subarray(0, length);
}

/** `octets` repeated to the next multiple of `v` octets; empty stays empty (RFC 7292 B.2 steps 2–3). */
function repeatToBlocks(octets: Uint8Array, v: number): Buffer {
  const result = Buffer.alloc(v * Math.ceil(octets.length / v));
  for (let index = 0; index < result.length; index++) result[index] = octets[index % octets.length];
  return result;
}
