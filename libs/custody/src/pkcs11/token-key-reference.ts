import { KeyCustodyError } from '../key-custody.error';
import type { CustodyKeyContext } from '../key-custody.port';

/**
 * What a `pkcs11` key stores in place of a wrapped key: a reference to the token objects, never
 * key material. Format 0x81 (the high bit tells it apart from the local formats):
 *
 *   0x81 | CKA_ID of the key pair (1 to 64 octets)
 */
export const TOKEN_REFERENCE_FORMAT = 0x81;
const MAX_ID_OCTETS = 64;

export function encodeTokenReference(id: Uint8Array): Uint8Array {
  if (id.length === 0 || id.length > MAX_ID_OCTETS) {
    throw new KeyCustodyError('invalid-argument', `A token key id must be 1 to ${MAX_ID_OCTETS} octets`);
  }
  return Uint8Array.of(TOKEN_REFERENCE_FORMAT, ...id);
}

/** The CKA_ID a reference names; `unsupported-key` for anything else (e.g. a locally wrapped key). */
export function decodeTokenReference(wrapped: Uint8Array): Buffer {
  if (wrapped[0] !== TOKEN_REFERENCE_FORMAT || wrapped.length < 2 || wrapped.length > 1 + MAX_ID_OCTETS) {
    const found = wrapped.length === 0 ? 'an empty blob' : `format ${wrapped[0]} of ${wrapped.length} octets`;
    throw new KeyCustodyError('unsupported-key', `Not a PKCS#11 token key reference: ${found}`);
  }
  return Buffer.from(wrapped.subarray(1));
}

/**
 * CKA_LABEL of a key's token objects: binds them to their owner, as the associated data does for
 * a locally wrapped key. A reference copied to another tenant's or CA's row names objects whose
 * label says otherwise, and is refused. Percent-encoded, so no two contexts share a label.
 */
export function tokenKeyLabel(ctx: CustodyKeyContext): string {
  return `ca-manager/${encodeURIComponent(ctx.tenantId)}/${encodeURIComponent(ctx.keyId)}`;
}
