import { createPublicKey, verify } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';

describe('pkiCrypto', () => {
  it("is pkijs's global engine, backed by Node's WebCrypto", () => {
    expect(pkijs.getCrypto(true)).toBe(pkiCrypto());
    expect(pkiCrypto().crypto).toBe(globalThis.crypto);
  });

  // WebCrypto returns r || s; X.509 wants ECDSA-Sig-Value (RFC 5758 3.2) in DER, where an r or s
  // with a leading zero octet (1 signature in 128) must be shortened, and OpenSSL rejects it if not.
  it('turns ECDSA signatures into minimal DER that OpenSSL accepts, over 2000 signatures', async () => {
    const { privateKey, publicKey } = await generateEcKeyPair(false);
    const opensslKey = createPublicKey({
      key: Buffer.from(await exportSpkiDer(publicKey)),
      format: 'der',
      type: 'spki',
    });
    const { parameters } = await pkiCrypto().getSignatureParameters(privateKey, 'SHA-256');
    let shortened = 0;
    for (let i = 0; i < 2000; i++) {
      const data = Buffer.from(`tbs ${i}`);
      const signature = new Uint8Array(await pkiCrypto().signWithPrivateKey(data, privateKey, parameters));
      const sequence = asn1js.fromBER(signature).result as asn1js.Sequence;
      for (const integer of sequence.valueBlock.value as asn1js.Integer[]) {
        const content = integer.valueBlock.valueHexView;
        expect(content[0] & 0x80).toBe(0);
        expect(content[0] === 0 && !(content[1] & 0x80)).toBe(false);
        if (content.length - (content[0] === 0 ? 1 : 0) < 32) shortened++;
      }
      expect(verify('sha256', data, { key: opensslKey, dsaEncoding: 'der' }, signature)).toBe(true);
    }
    expect(shortened).toBeGreaterThan(0);
    // 2000 signatures so that some have the leading zero: about 2 s alone, several times that
    // on a machine running the integration suites beside it (5 s failed a CI run).
  }, 60_000);
});
