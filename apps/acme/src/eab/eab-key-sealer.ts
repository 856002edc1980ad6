import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Format version, the first octet of every sealed key. */
const SEALED_VERSION = 1;
const IV_OCTETS = 12;
const TAG_OCTETS = 16;
const DOMAIN = 'ca-manager/acme/eab-key';

/** Whose EAB key a sealed blob is: the AES-GCM associated data binds the blob to this row. */
export interface EabKeyOwner {
  tenantId: string;
  keyId: string;
}

/**
 * Seals EAB HMAC keys at rest (docs/operations.md#key-encryption-keys): `0x01 | IV | AES-256-GCM
 * (key) | tag` under the acme context's own KEK, authenticated with the tenant id and key id, so
 * a blob copied into another row or tenant does not open (NIST SP 800-38D associated data).
 */
export class EabKeySealer {
  constructor(private readonly kek: Uint8Array) {
    if (kek.length !== 32) throw new Error('the acme KEK must be 32 octets');
  }

  seal(owner: EabKeyOwner, hmacKey: Buffer): Buffer {
    const iv = randomBytes(IV_OCTETS);
    const cipher = createCipheriv('aes-256-gcm', this.kek, iv);
    cipher.setAAD(associatedData(owner));
    const body = Buffer.concat([cipher.update(hmacKey), cipher.final()]);
    return Buffer.concat([Buffer.of(SEALED_VERSION), iv, body, cipher.getAuthTag()]);
  }

  /** Throws when the blob was not sealed for this owner under this KEK, or was altered. */
  open(owner: EabKeyOwner, sealed: Buffer): Buffer {
    if (sealed.length <= 1 + IV_OCTETS + TAG_OCTETS || sealed[0] !== SEALED_VERSION) {
      throw new Error('not a sealed EAB key');
    }
    const iv = sealed.subarray(1, 1 + IV_OCTETS);
    const tag = sealed.subarray(sealed.length - TAG_OCTETS);
    const decipher = createDecipheriv('aes-256-gcm', this.kek, iv);
    decipher.setAAD(associatedData(owner));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_OCTETS, -TAG_OCTETS)), decipher.final()]);
  }
}

/** Length-prefixed fields (4 octets, big-endian), so no two owners encode alike. */
function associatedData(owner: EabKeyOwner): Buffer {
  const fields = [DOMAIN, String(SEALED_VERSION), owner.tenantId, owner.keyId].map((f) =>
    Buffer.from(f, 'utf8'),
  );
  return Buffer.concat(fields.flatMap((field) => [uint32(field.length), field]));
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}
