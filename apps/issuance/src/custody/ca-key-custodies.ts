import type { webcrypto } from 'node:crypto';
import { CaRole } from '@ca/contracts';
import {
  type CustodiedKey,
  type CustodyKeyAlgorithm,
  type CustodyKeyContext,
  KeyCustody,
  KeyCustodyError,
  type OpenedSigningKey,
} from '@ca/custody';

/** Where a root key was found is worth one line per key (a pino logger fits). */
export interface CustodyLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * The custody of each CA role (docs/operations.md#key-custody): with PKCS11_ROOT_TOKEN_LABEL,
 * root keys are in a token of their own and issuing CA keys in PKCS11_TOKEN_LABEL's; otherwise
 * (and always with `local`) both roles share the one custody. Every place that makes or opens a
 * CA key asks `forRole` with the CA's role, so no handler knows how many tokens there are.
 */
export class CaKeyCustodies {
  private readonly root: KeyCustody;

  /** `rootToken`: the custody on the root token, when one is configured. */
  constructor(
    readonly main: KeyCustody,
    private readonly rootToken?: KeyCustody,
    log?: CustodyLog,
  ) {
    this.root = rootToken ? new RootTokenCustody(rootToken, main, log) : main;
  }

  /** One custody for both roles, as without a root token. */
  static single(custody: KeyCustody): CaKeyCustodies {
    return new CaKeyCustodies(custody);
  }

  forRole(role: CaRole): KeyCustody {
    return role === CaRole.Root ? this.root : this.main;
  }

  close(): void {
    this.rootToken?.close();
    this.main.close();
  }
}

/**
 * Root keys with a root token: new ones are made there. A deployment that set the root token up
 * later has root keys already in the main token; those still open (root token first, then the
 * main one), and the token that held each key is logged once. Moving them is a job for the
 * token's own tools (docs/operations.md#key-custody), since a never-extractable key cannot be
 * exported by us.
 */
class RootTokenCustody extends KeyCustody {
  /** Which custody held each key opened so far (by CA id). */
  private readonly holders = new Map<string, KeyCustody>();

  constructor(
    private readonly rootToken: KeyCustody,
    private readonly main: KeyCustody,
    private readonly log?: CustodyLog,
  ) {
    super();
  }

  generateSigningKey(
    ctx: CustodyKeyContext,
    algorithm?: CustodyKeyAlgorithm,
  ): Promise<{ key: CustodiedKey; publicKey: webcrypto.CryptoKey }> {
    this.holders.set(ctx.keyId, this.rootToken);
    return this.rootToken.generateSigningKey(ctx, algorithm);
  }

  async openSigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<OpenedSigningKey> {
    const known = this.holders.get(ctx.keyId);
    if (known) return known.openSigningKey(ctx, key);
    let inRootToken: unknown;
    try {
      const opened = await this.rootToken.openSigningKey(ctx, key);
      this.found(ctx, this.rootToken);
      return opened;
    } catch (error) {
      inRootToken = error;
    }
    try {
      const opened = await this.main.openSigningKey(ctx, key);
      this.found(ctx, this.main);
      return opened;
    } catch (inMainToken) {
      throw neither(ctx, inRootToken, inMainToken);
    }
  }

  /** Where the key is known to be; else in both tokens (a key already gone is not an error there). */
  async destroySigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<void> {
    const known = this.holders.get(ctx.keyId);
    this.holders.delete(ctx.keyId);
    if (known) return known.destroySigningKey(ctx, key);
    await this.rootToken.destroySigningKey(ctx, key);
    await this.main.destroySigningKey(ctx, key);
  }

  private found(ctx: CustodyKeyContext, holder: KeyCustody): void {
    this.holders.set(ctx.keyId, holder);
    const fields = { tenantId: ctx.tenantId, caId: ctx.keyId };
    if (holder === this.rootToken) this.log?.info(fields, 'root CA key opened from the root token');
    else
      this.log?.warn(
        fields,
        'root CA key opened from the main token: it was made before PKCS11_ROOT_TOKEN_LABEL was set; move it with the token tools (docs/operations.md#key-custody)',
      );
  }
}

/** Both tokens refused: one error that says what each said (ids only, never key material). */
function neither(ctx: CustodyKeyContext, inRootToken: unknown, inMainToken: unknown): unknown {
  if (!(inRootToken instanceof KeyCustodyError)) return inRootToken;
  if (!(inMainToken instanceof KeyCustodyError)) return inMainToken;
  const which = `key ${ctx.keyId} of tenant ${ctx.tenantId}`;
  const reason = (error: KeyCustodyError) => error.message.replace(`Cannot open ${which}: `, '');
  return new KeyCustodyError(
    inRootToken.failure,
    `Cannot open ${which}: root token: ${reason(inRootToken)}; main token: ${reason(inMainToken)}`,
  );
}
