import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parseCertificate } from './certificate.parser';
import { exportSpkiDer } from './ec-key-pair';
import { type OcspBasicResponseInfo, parseOcspResponse } from './ocsp-response.parser';
import { derToPem } from './pem';
import { exportPrivateKeyPem } from './private-key';
import { readTbsCertificateFields } from './tbs-certificate.reader';
import { createTestPki, describeIfOpenssl, runOpenssl, type TestPki } from './testing';

// A response this library did not write: openssl acting as the responder, from an index file.
describeIfOpenssl('OCSP responses made by the openssl CLI', () => {
  let dir: string;
  let pki: TestPki;
  let revoked: string;
  let good: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pki-ocsp-openssl-'));
    pki = await createTestPki('OpenSSL Responder Root');
    writeFileSync(join(dir, 'ca.pem'), derToPem(pki.caDer));
    writeFileSync(join(dir, 'ocsp.pem'), derToPem(pki.ocspSignerDer));
    writeFileSync(join(dir, 'ocsp.key.pem'), await exportPrivateKeyPem(pki.ocspSignerKeys.privateKey));
    revoked = (await pki.issueLeaf()).serialNumberHex;
    good = (await pki.issueLeaf()).serialNumberHex;
    // index.txt of `openssl ca`: status, expiry, revocation time[,reason], serial, file, subject.
    writeFileSync(
      join(dir, 'index.txt'),
      `R\t301231000000Z\t261121083000Z,keyCompromise\t${revoked}\tunknown\t/CN=revoked\n` +
        `V\t301231000000Z\t\t${good}\tunknown\t/CN=good\n`,
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const opensslResponse = (extra: string[]): OcspBasicResponseInfo => {
    const file = (name: string) => join(dir, name);
    runOpenssl([
      'ocsp',
      '-issuer',
      file('ca.pem'),
      '-serial',
      `0x${revoked}`,
      '-serial',
      `0x${good}`,
      '-serial',
      '0x77',
      '-reqout',
      file('req.der'),
    ]);
    runOpenssl([
      'ocsp',
      '-index',
      file('index.txt'),
      '-CA',
      file('ca.pem'),
      '-rsigner',
      file('ocsp.pem'),
      '-rkey',
      file('ocsp.key.pem'),
      '-reqin',
      file('req.der'),
      '-respout',
      file('resp.der'),
      '-ndays',
      '1',
      ...extra,
    ]);
    return parseOcspResponse(readFileSync(file('resp.der'))) as OcspBasicResponseInfo;
  };

  it('reads the statuses, the nonce and the signer of a response named byName', async () => {
    const response = opensslResponse([]);
    expect(response.responseStatus).toBe('successful');
    expect(Buffer.from(response.responderNameDer!)).toEqual(
      Buffer.from(readTbsCertificateFields(pki.ocspSignerDer).subjectDer),
    );
    expect(response.nonce).toHaveLength(18);
    expect(response.certificates.map((der) => Buffer.from(der))).toEqual([Buffer.from(pki.ocspSignerDer)]);
    expect(response.responses.map(({ serialNumberHex, status }) => ({ serialNumberHex, status }))).toEqual([
      {
        serialNumberHex: revoked,
        status: { kind: 'revoked', revocationTime: new Date('2026-11-21T08:30:00Z'), reasonCode: 1 },
      },
      { serialNumberHex: good, status: { kind: 'good' } },
      { serialNumberHex: '77', status: { kind: 'unknown' } },
    ]);
    expect(response.responses[0].nextUpdate!.getTime()).toBeGreaterThan(
      response.responses[0].thisUpdate.getTime(),
    );
    const publicKey = createPublicKey({
      key: Buffer.from(await exportSpkiDer(pki.ocspSignerKeys.publicKey)),
      format: 'der',
      type: 'spki',
    });
    expect(verify('sha256', response.tbsResponseData, publicKey, response.signatureValue)).toBe(true);
  });

  it('reads the key hash of a response named byKey', () => {
    const response = opensslResponse(['-resp_key_id']);
    expect(response.responderKeyHashHex).toBe(parseCertificate(pki.ocspSignerDer).subjectKeyIdentifierHex);
    expect(response.responderNameDer).toBeUndefined();
  });
});
