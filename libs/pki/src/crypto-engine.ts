import * as pkijs from 'pkijs';

// pkijs finds no WebCrypto on its own under Node (it looks for `self.crypto`), so the engine is set
// here, once, on first import; every module that calls into pkijs gets it through `pkiCrypto()`.
// A PKCS#11 backend will bring its own engine (node-webcrypto-p11) and pass it where it signs.
const nodeEngine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: globalThis.crypto });
pkijs.setEngine(nodeEngine.name, nodeEngine);

export function pkiCrypto(): pkijs.ICryptoEngine {
  return nodeEngine;
}
