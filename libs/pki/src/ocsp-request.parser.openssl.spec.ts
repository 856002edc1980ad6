import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { toHex } from './hex';
import { buildCertId } from './ocsp-cert-id';
import { parseOcspRequest } from './ocsp-request.parser';
import { derToPem } from './pem';
import { PkiFormatError } from './pki-format.error';
import { exportPrivateKeyPem } from './private-key';
import { createTestPki, describeIfOpenssl, runOpenssl, type TestPki } from './testing';

// Requests as the openssl CLI writes them (the reference client of RFC 6960 interop).
describeIfOpenssl('OCSP requests made by the openssl CLI', () => {
  let dir: string;
  let pki: TestPki;
  let caPem: string;
  let serialNumberHex: string;
  let leafPem: string;
  /** `openssl ocsp … -reqout`: the DER request written, and its `-req_text` print-out. */
  const request = (name: string, args: string[]) => {
    const path = join(dir, `${name}.der`);
    runOpenssl(['ocsp', ...args, '-reqout', path]);
    return {
      der: new Uint8Array(readFileSync(path)),
      text: runOpenssl(['ocsp', '-reqin', path, '-req_text']),
    };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pki-ocsp-req-'));
    pki = await createTestPki('OCSP Client Root');
    caPem = join(dir, 'ca.pem');
    writeFileSync(caPem, derToPem(pki.caDer));
    const leaf = await pki.issueLeaf();
    serialNumberHex = leaf.serialNumberHex;
    leafPem = join(dir, 'leaf.pem');
    writeFileSync(leafPem, derToPem(leaf.der));
    writeFileSync(join(dir, 'leaf.key.pem'), await exportPrivateKeyPem(leaf.keys.privateKey));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a SHA-1 request without nonce: the CertID openssl wrote is the one buildCertId writes', () => {
    const { der } = request('sha1', ['-issuer', caPem, '-serial', `0x${serialNumberHex}`, '-no_nonce']);
    const expected = buildCertId({ issuerCertificateDer: pki.caDer, serialNumberHex, hashAlgorithm: 'sha1' });
    expect(parseOcspRequest(der)).toEqual({ certIds: [expected] });
  });

  it('reads a SHA-256 request for a certificate file', () => {
    const { der, text } = request('sha256', ['-sha256', '-issuer', caPem, '-cert', leafPem, '-no_nonce']);
    const { certIds, nonce } = parseOcspRequest(der);
    expect(nonce).toBeUndefined();
    expect(certIds).toEqual([
      buildCertId({ issuerCertificateDer: pki.caDer, serialNumberHex, hashAlgorithm: 'sha256' }),
    ]);
    expect(text).toContain(`Issuer Key Hash: ${toHex(certIds[0].issuerKeyHash)}`);
    expect(text).toContain(`Issuer Name Hash: ${toHex(certIds[0].issuerNameHash)}`);
  });

  it('reads the nonce openssl adds by default, as -req_text prints it', () => {
    const { der, text } = request('nonce', ['-issuer', caPem, '-serial', `0x${serialNumberHex}`]);
    const { nonce } = parseOcspRequest(der);
    // openssl wraps 16 random octets in an OCTET STRING, the RFC 9654 form: 04 10 …
    expect(nonce).toHaveLength(18);
    expect(text).toMatch(new RegExp(`OCSP Nonce: \\n\\s+${toHex(nonce!)}\\n`));
  });

  it('reads two serials in one request, in order', () => {
    const { der } = request('two', [
      '-issuer',
      caPem,
      '-serial',
      `0x${serialNumberHex}`,
      '-serial',
      '0x0102',
      '-no_nonce',
    ]);
    expect(parseOcspRequest(der).certIds.map((certId) => certId.serialNumberHex)).toEqual([
      serialNumberHex,
      '0102',
    ]);
  });

  it('ignores the signature of a signed request', () => {
    const { der, text } = request('signed', [
      '-issuer',
      caPem,
      '-serial',
      `0x${serialNumberHex}`,
      '-signer',
      leafPem,
      '-signkey',
      join(dir, 'leaf.key.pem'),
    ]);
    expect(text).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(text).toContain('Requestor Name: ');
    const info = parseOcspRequest(der);
    expect(info.certIds.map((certId) => certId.serialNumberHex)).toEqual([serialNumberHex]);
    expect(info.nonce).toHaveLength(18);
  });

  it('throws PkiFormatError for truncations and trailing garbage of an openssl request', () => {
    const { der } = request('broken', ['-issuer', caPem, '-serial', `0x${serialNumberHex}`]);
    for (let length = 0; length < der.length; length++) {
      expect(() => parseOcspRequest(der.subarray(0, length))).toThrow(PkiFormatError);
    }
    expect(() => parseOcspRequest(Uint8Array.of(...der, 0x30, 0x00))).toThrow(PkiFormatError);
  });
});
