import type { webcrypto } from 'node:crypto';
import * as graphene from 'graphene-pk11';
import { Crypto } from 'node-webcrypto-p11';
import { KeyCustodyError } from '../key-custody.error';

/** docs/api.md#configuration: PKCS11_LIBRARY, PKCS11_TOKEN_LABEL, PKCS11_PIN. */
export interface Pkcs11TokenOptions {
  /** Path of the PKCS#11 module (.so), e.g. SoftHSM2's libsofthsm2.so. */
  library: string;
  /** CKA_LABEL of the token (its slot is looked up by it, so slot numbers may change). */
  tokenLabel: string;
  /** The user PIN. */
  pin: string;
}

/** A logged-in read-write session on the token, and the WebCrypto provider built on it. */
export interface Pkcs11TokenSession {
  readonly session: graphene.Session;
  /** The provider itself: use it only inside `exclusive`. */
  readonly rawCrypto: Crypto;
  /** The provider for everyone else: every `subtle` call waits for the session to be free. */
  readonly crypto: webcrypto.Crypto;
  /** Runs `work` when no other operation uses the session. */
  exclusive<T>(work: () => T | Promise<T>): Promise<T>;
  /** Gives the session back; the last user logs out and finalizes the module. */
  release(): void;
}

interface OpenToken {
  session: graphene.Session;
  rawCrypto: Crypto;
  crypto: webcrypto.Crypto;
  exclusive<T>(work: () => T | Promise<T>): Promise<T>;
  users: number;
}

interface LoadedModule {
  module: graphene.Module;
  tokens: Map<string, OpenToken>;
}

/**
 * One C_Initialize and one login per library and token in the whole process (PKCS#11 2.40
 * section 5.4: a second C_Initialize fails, and a login applies to every session of the
 * application anyway); every custody in the process shares them.
 */
const modules = new Map<string, LoadedModule>();

export function openPkcs11Token(options: Pkcs11TokenOptions): Pkcs11TokenSession {
  const loaded = loadModule(options.library);
  let token = loaded.tokens.get(options.tokenLabel);
  if (!token) {
    try {
      token = openSession(loaded.module, options);
    } catch (error) {
      if (loaded.tokens.size === 0) finalize(options.library, loaded);
      throw error;
    }
    loaded.tokens.set(options.tokenLabel, token);
  }
  token.users += 1;
  const opened = token;
  let released = false;
  return {
    session: opened.session,
    rawCrypto: opened.rawCrypto,
    crypto: opened.crypto,
    exclusive: opened.exclusive,
    release: () => {
      if (released) return;
      released = true;
      opened.users -= 1;
      if (opened.users > 0) return;
      loaded.tokens.delete(options.tokenLabel);
      closeSession(opened.session);
      if (loaded.tokens.size === 0) finalize(options.library, loaded);
    },
  };
}

function loadModule(library: string): LoadedModule {
  const existing = modules.get(library);
  if (existing) return existing;
  let module: graphene.Module;
  try {
    module = graphene.Module.load(library, 'ca-manager');
    module.initialize();
  } catch (error) {
    throw new KeyCustodyError(
      'invalid-argument',
      `PKCS11_LIBRARY: cannot load the PKCS#11 module ${library} (${reason(error)})`,
    );
  }
  const loaded = { module, tokens: new Map<string, OpenToken>() };
  modules.set(library, loaded);
  return loaded;
}

function openSession(module: graphene.Module, options: Pkcs11TokenOptions): OpenToken {
  const slot = findSlot(module, options.tokenLabel);
  const session = slot.open(graphene.SessionFlag.SERIAL_SESSION | graphene.SessionFlag.RW_SESSION);
  try {
    session.login(options.pin, graphene.UserType.USER);
  } catch (error) {
    closeSession(session);
    // The PIN itself never goes into a message.
    throw new KeyCustodyError(
      'invalid-argument',
      `PKCS11_PIN: the token "${options.tokenLabel}" refused the login (${reason(error)})`,
    );
  }
  const rawCrypto = new Crypto({ session, name: options.tokenLabel });
  const exclusive = oneAtATime();
  return { session, rawCrypto, crypto: serialized(rawCrypto, exclusive), exclusive, users: 0 };
}

/**
 * A session runs one operation at a time (PKCS#11 2.40 section 5.1): a second C_SignInit while a
 * signature is being computed fails with CKR_OPERATION_ACTIVE. Concurrent requests therefore
 * queue for the session; signing a certificate takes about a millisecond in a token.
 */
function oneAtATime(): <T>(work: () => T | Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(work: () => T | Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };
}

/** The provider with every `subtle` method queued through `exclusive` (what pkijs is given). */
function serialized(
  crypto: Crypto,
  exclusive: <T>(work: () => T | Promise<T>) => Promise<T>,
): webcrypto.Crypto {
  const subtle = new Proxy(crypto.subtle, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        exclusive(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return {
    subtle,
    getRandomValues: <T extends ArrayBufferView | null>(array: T) => crypto.getRandomValues(array),
    randomUUID: () => globalThis.crypto.randomUUID(),
  } as unknown as webcrypto.Crypto;
}

function findSlot(module: graphene.Module, tokenLabel: string): graphene.Slot {
  const slots = module.getSlots(true);
  const labels: string[] = [];
  for (let i = 0; i < slots.length; i++) {
    const slot = slots.items(i);
    const label = slot.getToken().label.trim(); // CK_TOKEN_INFO pads the label with blanks
    if (label === tokenLabel) return slot;
    if (label) labels.push(`"${label}"`);
  }
  throw new KeyCustodyError(
    'invalid-argument',
    `PKCS11_TOKEN_LABEL: no token labelled "${tokenLabel}" (found ${labels.join(', ') || 'none'})`,
  );
}

function closeSession(session: graphene.Session): void {
  try {
    session.logout();
  } catch {
    // not logged in (failed login): closing is all that is left
  }
  session.close();
}

function finalize(library: string, loaded: LoadedModule): void {
  modules.delete(library);
  try {
    loaded.module.finalize();
  } catch {
    // already finalized
  }
}

/** The PKCS#11 return value name (CKR_…) or the message; never a PIN or key material. */
function reason(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}
