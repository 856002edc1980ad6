import { parseCertificate } from '../certificate.parser';
import { createTestPki } from './test-pki';

describe('createTestPki', () => {
  it('makes a CA, a delegated OCSP signer and leaves issued by it', async () => {
    const pki = await createTestPki('Fixture Root');
    const ca = parseCertificate(pki.caDer);
    expect(ca).toMatchObject({ isCa: true, subject: { commonName: 'Fixture Root' } });
    const signer = parseCertificate(pki.ocspSignerDer);
    expect(signer).toMatchObject({
      isCa: false,
      extendedKeyUsages: ['ocspSigning'],
      subject: { commonName: 'Fixture Root OCSP Responder' },
      authorityKeyIdentifierHex: ca.subjectKeyIdentifierHex,
    });
    expect(signer.extensionOids).toContain('1.3.6.1.5.5.7.48.1.5'); // id-pkix-ocsp-nocheck
    const leaf = await pki.issueLeaf();
    expect(parseCertificate(leaf.der)).toMatchObject({
      serialNumberHex: leaf.serialNumberHex,
      extendedKeyUsages: ['clientAuth'],
      issuer: ca.subject,
    });
    expect(leaf.keys.privateKey.extractable).toBe(true);
  });
});
