import type { CustodyKeyContext, CustodyKeyAlgorithm } from '../key-custody.port';

const DOMAIN = 'ca-manager/key-custody/local';

/**
 * The AES-GCM associated data of a wrapped key (NIST SP 800-38D): authenticated, not encrypted.
 * It binds the ciphertext to its owner (tenantId, keyId), so a blob copied to another row does
 * not open, and to the format version, algorithm and public key stored beside it, so those
 * cannot be swapped either. Canonical and unambiguous: every field is prefixed by its length
 * (4 octets, big-endian), so no two different contexts encode to the same octets.
 */
export function associatedData(
  ctx: CustodyKeyContext,
  key: { version: number; algorithm: CustodyKeyAlgorithm; publicKeySpki: Uint8Array },
): Uint8Array {
  const text = (value: string) => new TextEncoder().encode(value);
  return lengthPrefixed([
    text(DOMAIN),
    Uint8Array.of(key.version),
    text(key.algorithm),
    text(ctx.tenantId),
    text(ctx.keyId),
    key.publicKeySpki,
  ]);
}

function lengthPrefixed(fields: readonly Uint8Array[]): Uint8Array {
  const out = Buffer.alloc(fields.reduce((total, field) => total + 4 + field.length, 0));
  let offset = 0;
  for (const field of fields) {
    offset = out.writeUInt32BE(field.length, offset);
    out.set(field, offset);
    offset += field.length;
  }
  return new Uint8Array(out);
}
