import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a nonce may wait for its request (RFC 8555 6.5 leaves it to the server). */
export const NONCE_LIFETIME_MS = 60 * 60 * 1000;

/** version (1) | issued at, seconds (4) | id (12) | HMAC-SHA-256 truncated (16). */
const VERSION = 1;
/** The octets of a nonce's id (what SpentNonces records). */
export const ID_OCTETS = 12;
const MAC_OCTETS = 16;
const SIGNED_OCTETS = 1 + 4 + ID_OCTETS;
const NONCE_OCTETS = SIGNED_OCTETS + MAC_OCTETS;
const NONCE_TEXT = /^[A-Za-z0-9_-]{44}$/;

/**
 * Where nonces are marked spent (RFC 8555 6.5: each is accepted once). `newId` gives the id of a
 * nonce about to be issued; `claim` is true the first time an id is presented, never again.
 */
export interface SpentNonces {
  newId(): Buffer;
  claim(id: Buffer, expiresAt: Date): Promise<boolean>;
  /** Forgets the spent nonces that have expired anyway; how many. */
  prune(now: Date): Promise<number>;
}

/**
 * Replay nonces (RFC 8555 6.5) that need no row to be issued: a nonce carries its issue time and an
 * id, bound to its tenant by an HMAC under the acme context's nonce key, so any replica holding
 * the key checks it without asking anyone. Only spending one is recorded (SpentNonces), once.
 * A nonce made under another key (before a restart in embedded mode), of another tenant, altered,
 * expired or spent is refused: the client retries with the fresh nonce of that answer.
 */
export class NonceStore {
  constructor(
    private readonly key: Uint8Array,
    private readonly spent: SpentNonces,
    private readonly lifetimeMs = NONCE_LIFETIME_MS,
    /** The clock (tests move it forward). */
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A new nonce, good for requests under `tenantId` only. */
  async issue(tenantId: string): Promise<string> {
    const signed = Buffer.alloc(SIGNED_OCTETS);
    signed[0] = VERSION;
    signed.writeUInt32BE(Math.floor(this.now().getTime() / 1000), 1);
    this.spent.newId().copy(signed, 5, 0, ID_OCTETS);
    return Buffer.concat([signed, this.mac(tenantId, signed)]).toString('base64url');
  }

  /**
   * True once for a nonce this server issued under `tenantId` and that has not expired. Another
   * tenant's nonce is refused and stays good for its own tenant.
   */
  async consume(tenantId: string, value: string): Promise<boolean> {
    if (!NONCE_TEXT.test(value)) return false;
    const nonce = Buffer.from(value, 'base64url');
    if (nonce.length !== NONCE_OCTETS || nonce[0] !== VERSION) return false;
    const signed = nonce.subarray(0, SIGNED_OCTETS);
    if (!timingSafeEqual(nonce.subarray(SIGNED_OCTETS), this.mac(tenantId, signed))) return false;
    const expiresAt = new Date(signed.readUInt32BE(1) * 1000 + this.lifetimeMs);
    if (expiresAt <= this.now()) return false;
    return this.spent.claim(Buffer.from(signed.subarray(5)), expiresAt);
  }

  prune(): Promise<number> {
    return this.spent.prune(this.now());
  }

  private mac(tenantId: string, signed: Buffer): Buffer {
    return createHmac('sha256', this.key)
      .update(tenantId)
      .update('\0')
      .update(signed)
      .digest()
      .subarray(0, MAC_OCTETS);
  }
}

/** The nonce key of replicas sharing a KEK (docs/operations.md, ACME): derived, never stored. */
export function nonceKeyFromKek(kek: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', kek, Buffer.alloc(0), 'ca-manager acme replay nonces', 32));
}

/** How many of the latest nonces one process tracks: 2^20 bits, 128 KiB. */
export const LOCAL_NONCE_WINDOW = 1 << 20;

/**
 * Spent nonces of the one process that issues and checks them all (embedded mode: the database
 * is in the process, so there is no other replica), with a key of its own that dies with it. Ids are
 * serial numbers; a bitmap over the last LOCAL_NONCE_WINDOW issued marks the spent ones, so memory
 * stays fixed. A nonce older than the window is refused (badNonce, the client retries at once).
 */
export class LocalSpentNonces implements SpentNonces {
  private issued = 0;
  private readonly bits: Uint8Array;

  constructor(private readonly window = LOCAL_NONCE_WINDOW) {
    this.bits = new Uint8Array(Math.ceil(window / 8));
  }

  newId(): Buffer {
    const serial = this.issued++;
    this.setBit(serial % this.window, false);
    const id = randomBytes(ID_OCTETS);
    id.writeUIntBE(serial, 0, 6);
    return id;
  }

  async claim(id: Buffer): Promise<boolean> {
    const serial = id.readUIntBE(0, 6);
    if (serial >= this.issued || serial < this.issued - this.window) return false;
    const slot = serial % this.window;
    if (this.bit(slot)) return false;
    this.setBit(slot, true);
    return true;
  }

  async prune(): Promise<number> {
    return 0;
  }

  private bit(slot: number): boolean {
    return (this.bits[slot >> 3] & (1 << (slot & 7))) !== 0;
  }

  private setBit(slot: number, on: boolean): void {
    if (on) this.bits[slot >> 3] |= 1 << (slot & 7);
    else this.bits[slot >> 3] &= ~(1 << (slot & 7));
  }
}
