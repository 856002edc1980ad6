import { assembleCertificateList, encodeTbsCertList } from './crl.builder';
import { checkCrlIssuedBy } from './crl-issued-by';
import { signTbs } from './ecdsa-sig-value';
import { createTestPki, type TestPki } from './testing';

describe('checkCrlIssuedBy', () => {
  let ca: TestPki;
  let other: TestPki;
  let sameName: TestPki;

  async function crl(signer: TestPki, issuer: TestPki, crlNumber = 7n): Promise<Uint8Array> {
    const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
    const tbs = encodeTbsCertList({
      issuerCertificateDer: issuer.caDer,
      crlNumber,
      thisUpdate,
      nextUpdate: new Date(thisUpdate.getTime() + 86_400_000),
      entries: [{ serialNumberHex: '01AB', revocationDate: thisUpdate, reasonCode: 1 }],
    });
    return assembleCertificateList(tbs, await signTbs(tbs, signer.caKeys.privateKey));
  }

  beforeAll(async () => {
    ca = await createTestPki('Tenant Root');
    other = await createTestPki('Other Root');
    sameName = await createTestPki('Tenant Root');
  });

  it('accepts a CRL the CA signed, and says what it holds', async () => {
    const check = checkCrlIssuedBy(await crl(ca, ca, 12n), ca.caDer);
    expect(check).toMatchObject({ issuedBy: true, summary: { crlNumber: 12n, entryCount: 1 } });
  });

  it('refuses a CRL signed by another key, even naming the CA (RFC 5280 6.3.3 (f))', async () => {
    const forged = await crl(other, ca, 2n ** 100n);
    expect(checkCrlIssuedBy(forged, ca.caDer)).toEqual({
      issuedBy: false,
      reason: "signature does not verify with the tenant CA's public key",
    });
  });

  it('refuses a CRL of another CA, and of a CA with the same name but another key', async () => {
    expect(checkCrlIssuedBy(await crl(other, other), ca.caDer)).toMatchObject({ issuedBy: false });
    expect(checkCrlIssuedBy(await crl(sameName, sameName), ca.caDer)).toMatchObject({ issuedBy: false });
  });

  it('refuses bytes that are not a CRL, or have trailing bytes', async () => {
    expect(checkCrlIssuedBy(Buffer.from('not a crl'), ca.caDer)).toMatchObject({ issuedBy: false });
    const good = await crl(ca, ca);
    const trailing = Buffer.concat([good, Buffer.of(0)]);
    expect(checkCrlIssuedBy(trailing, ca.caDer)).toMatchObject({ issuedBy: false });
  });
});
