import {
  KeyObject,
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
} from 'node:crypto';

/**
 * A secret sealed to a recipient's ephemeral X25519 key, so it can cross the bus: ECDH with a
 * fresh sender key, HKDF-SHA256 (RFC 5869) over the shared secret, AES-256-GCM. Only the holder of
 * the recipient's private key can open it; tampering makes opening fail.
 */
export interface SealedSecret {
  /** The sender's ephemeral X25519 public key, DER SubjectPublicKeyInfo, base64. */
  senderPublicKey: string;
  /** 12 random octets, base64. */
  iv: string;
  /** AES-256-GCM ciphertext followed by its 16-octet tag, base64. */
  ciphertext: string;
}

export interface SealRecipient {
  /** DER SubjectPublicKeyInfo of an X25519 key, base64: what the opener sends to the sealer. */
  publicKey: string;
  open(sealed: SealedSecret): Buffer;
}

const INFO = Buffer.from('ca-manager sealed secret v1');

/** A fresh X25519 pair; its public half goes with the request, its private half never leaves. */
export function createSealRecipient(): SealRecipient {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  const publicDer = publicKey.export({ type: 'spki', format: 'der' });
  return {
    publicKey: publicDer.toString('base64'),
    open: (sealed) => openSealed(sealed, privateKey, publicDer),
  };
}

/** Seals `secret` to the X25519 key in `recipientPublicKey` (base64 SPKI); throws if it is not one. */
export function sealTo(recipientPublicKey: string, secret: Buffer): SealedSecret {
  const recipientDer = Buffer.from(recipientPublicKey, 'base64');
  const recipient = createPublicKey({ key: recipientDer, format: 'der', type: 'spki' });
  if (recipient.asymmetricKeyType !== 'x25519') throw new Error('the recipient key is not X25519');
  const sender = generateKeyPairSync('x25519');
  const senderDer = sender.publicKey.export({ type: 'spki', format: 'der' });
  const key = deriveKey(
    diffieHellman({ privateKey: sender.privateKey, publicKey: recipient }),
    senderDer,
    recipientDer,
  );
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final(), cipher.getAuthTag()]);
  return {
    senderPublicKey: senderDer.toString('base64'),
    iv: iv.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

function openSealed(sealed: SealedSecret, privateKey: KeyObject, recipientDer: Buffer): Buffer {
  const senderDer = Buffer.from(sealed.senderPublicKey, 'base64');
  const sender = createPublicKey({ key: senderDer, format: 'der', type: 'spki' });
  if (sender.asymmetricKeyType !== 'x25519') throw new Error('the sender key is not X25519');
  const key = deriveKey(diffieHellman({ privateKey, publicKey: sender }), senderDer, recipientDer);
  const data = Buffer.from(sealed.ciphertext, 'base64');
  if (data.length < 16) throw new Error('the sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
}

/** Both public keys are the salt, binding the derived key to this exchange. */
function deriveKey(shared: Buffer, senderDer: Buffer, recipientDer: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([senderDer, recipientDer]), INFO, 32));
}
