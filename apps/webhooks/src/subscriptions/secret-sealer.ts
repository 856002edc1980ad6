import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SEALED_VERSION = 1;
const IV_OCTETS = 12;
const TAG_OCTETS = 16;
const DOMAIN = 'ca-manager/webhooks/signing-secret';

/** Whose signing secret a sealed blob is: the AES-GCM associated data binds it to this row. */
export interface SecretOwner {
  tenantId: string;
  webhookId: string;
}

/**
 * Seals webhook signing secrets at rest: `0x01 | IV | AES-256-GCM(secret) | tag` under the
 * webhooks context's own KEK, authenticated with tenant and subscription id, so a blob copied into
 * another row does not open (NIST SP 800-38D associated data). The same scheme as acme's EAB keys.
 */
export class SecretSealer {
  constructor(private readonly kek: Uint8Array) {
    if (kek.length !== 32) throw new Error('the webhooks KEK must be 32 octets');
  }

  seal(owner: SecretOwner, secret: Buffer): Buffer {
    const iv = randomBytes(IV_OCTETS);
    const cipher = createCipheriv('aes-256-gcm', this.kek, iv);
    cipher.setAAD(associatedData(owner));
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    return Buffer.concat([Buffer.of(SEALED_VERSION), iv, body, cipher.getAuthTag()]);
  }

  /** Throws when the blob was not sealed for this owner under this KEK, or was altered. */
  open(owner: SecretOwner, sealed: Buffer): Buffer {
    if (sealed.length <= 1 + IV_OCTETS + TAG_OCTETS || sealed[0] !== SEALED_VERSION) {
      throw new Error('not a sealed signing secret');
    }
    const iv = sealed.subarray(1, 1 + IV_OCTETS);
    const decipher = createDecipheriv('aes-256-gcm', this.kek, iv);
    decipher.setAAD(associatedData(owner));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_OCTETS));
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_OCTETS, -TAG_OCTETS)), decipher.final()]);
  }
}

/** Length-prefixed fields, so no two owners encode alike. */
function associatedData(owner: SecretOwner): Buffer {
  const fields = [DOMAIN, String(SEALED_VERSION), owner.tenantId, owner.webhookId].map((f) =>
    Buffer.from(f, 'utf8'),
  );
  return Buffer.concat(
    fields.flatMap((field) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(field.length);
      return [length, field];
    }),
  );
}
