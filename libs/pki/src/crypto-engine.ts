import type { webcrypto } from 'node:crypto';
import * as pkijs from 'pkijs';

// pkijs finds no WebCrypto on its own under Node (it looks for `self.crypto`), so the engine is set
// here, once, on first import; every module that calls into pkijs gets it through `pkiCrypto()`.
// A private key of another WebCrypto provider (a PKCS#11 token's, from `@ca/custody`) is declared
// with `useProviderForKey`; signing with that key then goes through an engine on that provider.
const nodeEngine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: globalThis.crypto });
pkijs.setEngine(nodeEngine.name, nodeEngine);

const providerEngines = new WeakMap<object, pkijs.CryptoEngine>();
const keyEngines = new WeakMap<webcrypto.CryptoKey, pkijs.CryptoEngine>();

/** Declares that `privateKey` can sign only through `crypto` (e.g. node-webcrypto-p11's). */
export function useProviderForKey(privateKey: webcrypto.CryptoKey, crypto: webcrypto.Crypto): void {
  if (crypto === globalThis.crypto) return;
  let engine = providerEngines.get(crypto);
  if (!engine) {
    engine = new pkijs.CryptoEngine({
      name: 'custody-provider',
      crypto: crypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'],
    });
    providerEngines.set(crypto, engine);
  }
  keyEngines.set(privateKey, engine);
}

/** The engine to sign with `privateKey`, or Node's WebCrypto engine for everything else. */
export function pkiCrypto(privateKey?: webcrypto.CryptoKey): pkijs.CryptoEngine {
  return (privateKey && keyEngines.get(privateKey)) ?? nodeEngine;
}
