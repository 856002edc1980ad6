import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ocspRequest, readOcspResponse } from './ocsp';
import { readCertificate } from './x509';

const testdata = (name: string) => readFileSync(join(__dirname, 'testdata', name));

/** The detail page's OCSP question and how it reads the answer, against the openssl CLI's bytes. */
describe('OCSP in the console', () => {
  it('asks the same question as `openssl ocsp -no_nonce` (SHA-1 CertID, one request)', async () => {
    const leaf = readCertificate(testdata('leaf.pem').toString());
    const issuer = readCertificate(testdata('issuing-ca.pem').toString());
    const request = await ocspRequest(leaf, issuer);
    expect(Buffer.from(request).toString('hex')).toBe(testdata('ocsp-request.der').toString('hex'));
  });

  it('reads a revoked answer with its time and reason', () => {
    const answer = readOcspResponse(new Uint8Array(testdata('ocsp-response-revoked.der')));
    expect(answer.status).toBe('revoked');
    expect(answer.revokedAt?.toISOString()).toBe('2026-12-01T12:00:00.000Z');
    expect(answer.reason).toBe('keyCompromise');
  });

  it('reads an error status without a body', () => {
    // OCSPResponse { responseStatus unauthorized (6) }
    expect(readOcspResponse(Uint8Array.from([0x30, 0x03, 0x0a, 0x01, 0x06])).status).toBe('unauthorized');
  });
});
