import { randomBytes } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import {
  contextConstructed,
  derElement,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  TAG,
} from './der-writer';
import { toHex } from './hex';
import { buildCertId, type OcspCertId } from './ocsp-cert-id';
import { OCSP_ID } from './ocsp-object-identifier';
import { parseOcspRequest } from './ocsp-request.parser';
import { PkiFormatError } from './pki-format.error';
import { createTestPki, type TestPki } from './testing';

const CRITICAL = Uint8Array.of(TAG.boolean, 1, 0xff);
const extension = (oid: string, value: Uint8Array, critical = false) =>
  derSequence(derObjectIdentifier(oid), ...(critical ? [CRITICAL] : []), derOctetString(value));
const nonceExtension = (nonce: Uint8Array) => extension(OCSP_ID.nonce, derOctetString(nonce));

/** An OCSPRequest written field by field (RFC 6960 4.1.1), to vary what clients send. */
function ocspRequest(options: {
  requests: Uint8Array[];
  version?: Uint8Array;
  requestorName?: boolean;
  extensions?: Uint8Array[];
  signature?: boolean;
}): Uint8Array {
  const tbs = derSequence(
    ...(options.version ? [derElement(contextConstructed(0), options.version)] : []),
    ...(options.requestorName
      ? [derElement(contextConstructed(1), derElement(0x82, new TextEncoder().encode('client.example')))]
      : []),
    derSequence(...options.requests),
    ...(options.extensions ? [derElement(contextConstructed(2), derSequence(...options.extensions))] : []),
  );
  const signature = derSequence(
    derSequence(derObjectIdentifier('1.2.840.10045.4.3.2')),
    derElement(TAG.bitString, Uint8Array.of(0), randomBytes(70)),
  );
  return derSequence(tbs, ...(options.signature ? [derElement(contextConstructed(0), signature)] : []));
}
const single = (certId: OcspCertId, ...singleExtensions: Uint8Array[]) =>
  derSequence(
    certId.der,
    ...(singleExtensions.length ? [derElement(contextConstructed(0), derSequence(...singleExtensions))] : []),
  );

describe('parseOcspRequest', () => {
  let pki: TestPki;
  let sha1: OcspCertId;
  let sha256: OcspCertId;

  beforeAll(async () => {
    pki = await createTestPki('OCSP Request Root');
    sha1 = buildCertId({ issuerCertificateDer: pki.caDer, serialNumberHex: '7F01', hashAlgorithm: 'sha1' });
    sha256 = buildCertId({ issuerCertificateDer: pki.caDer, serialNumberHex: '80', hashAlgorithm: 'sha256' });
  });

  it('reads every CertID in order, with the octets to echo', () => {
    expect(parseOcspRequest(ocspRequest({ requests: [single(sha1), single(sha256)] }))).toEqual({
      certIds: [sha1, sha256],
    });
  });

  it('hands out copies, not views of the request (a Buffer slice would be a view)', () => {
    const nonce = randomBytes(16);
    const der = Buffer.from(ocspRequest({ requests: [single(sha1)], extensions: [nonceExtension(nonce)] }));
    const info = parseOcspRequest(der);
    der.fill(0);
    expect(info.certIds[0].der).toEqual(sha1.der);
    expect(info.certIds[0].der.buffer).not.toBe(der.buffer);
    expect(toHex(info.nonce!)).toBe(toHex(derOctetString(nonce)));
  });

  it('returns the nonce extnValue as received, for 1 to 128 octets (RFC 9654 2.1)', () => {
    for (const length of [1, 32, 128]) {
      const nonce = randomBytes(length);
      const info = parseOcspRequest(
        ocspRequest({ requests: [single(sha1)], extensions: [nonceExtension(nonce)] }),
      );
      expect(toHex(info.nonce!)).toBe(toHex(derOctetString(nonce)));
    }
  });

  it('reads a request built by pkijs, with its nonce', async () => {
    const leaf = await pki.issueLeaf();
    const request = new pkijs.OCSPRequest();
    await request.createForCertificate(
      pkijs.Certificate.fromBER(leaf.der),
      { hashAlgorithm: 'SHA-256', issuerCertificate: pkijs.Certificate.fromBER(pki.caDer) },
      pkiCrypto(),
    );
    const nonce = new asn1js.OctetString({ valueHex: randomBytes(16) });
    request.tbsRequest.requestExtensions = [
      new pkijs.Extension({ extnID: OCSP_ID.nonce, critical: false, extnValue: nonce.toBER(false) }),
    ];
    const info = parseOcspRequest(new Uint8Array(request.toSchema(true).toBER(false)));
    expect(info.certIds).toHaveLength(1);
    expect(info.certIds[0]).toMatchObject({
      hashAlgorithm: 'sha256',
      serialNumberHex: leaf.serialNumberHex,
      issuerKeyHash: buildCertId({
        issuerCertificateDer: pki.caDer,
        serialNumberHex: '01',
        hashAlgorithm: 'sha256',
      }).issuerKeyHash,
    });
    expect(toHex(info.nonce!)).toBe(toHex(new Uint8Array(nonce.toBER(false))));
  });

  it('accepts an explicit v1, a requestor name, a signature and non-critical extensions it ignores', () => {
    const info = parseOcspRequest(
      ocspRequest({
        requests: [
          single(
            sha1,
            extension(OCSP_ID.serviceLocator, derSequence()),
            extension('1.2.3.4', Uint8Array.of(5, 0)),
          ),
        ],
        version: Uint8Array.of(TAG.integer, 1, 0),
        requestorName: true,
        extensions: [
          extension('1.2.3.5', Uint8Array.of(5, 0)),
          extension(OCSP_ID.acceptableResponses, derSequence(derObjectIdentifier(OCSP_ID.basic)), true),
        ],
        signature: true,
      }),
    );
    expect(info).toEqual({ certIds: [sha1] });
  });

  it('keeps a CertID whose hash algorithm parameters are absent, and other algorithms by OID', () => {
    const absent = derSequence(
      derSequence(derObjectIdentifier('1.3.14.3.2.26')),
      derOctetString(sha1.issuerNameHash),
      derOctetString(sha1.issuerKeyHash),
      Uint8Array.of(TAG.integer, 1, 9),
    );
    const sha384 = derSequence(
      derSequence(derObjectIdentifier('2.16.840.1.101.3.4.2.2'), Uint8Array.of(TAG.null, 0)),
      derOctetString(new Uint8Array(48)),
      derOctetString(new Uint8Array(48)),
      Uint8Array.of(TAG.integer, 1, 9),
    );
    const [first, second] = parseOcspRequest(
      ocspRequest({ requests: [derSequence(absent), derSequence(sha384)] }),
    ).certIds;
    expect(first).toMatchObject({ hashAlgorithm: 'sha1', serialNumberHex: '09', der: absent });
    expect(second).toMatchObject({ hashAlgorithm: '2.16.840.1.101.3.4.2.2', serialNumberHex: '09' });
  });

  it.each([
    ['no requests', () => ocspRequest({ requests: [] })],
    [
      'version v2',
      () => ocspRequest({ requests: [single(sha1)], version: Uint8Array.of(TAG.integer, 1, 1) }),
    ],
    [
      'a critical extension it does not understand',
      () =>
        ocspRequest({
          requests: [single(sha1)],
          extensions: [extension('1.2.3.4', Uint8Array.of(5, 0), true)],
        }),
    ],
    [
      'a critical unknown singleRequestExtension',
      () => ocspRequest({ requests: [single(sha1, extension('1.2.3.4', Uint8Array.of(5, 0), true))] }),
    ],
    [
      'two nonces',
      () =>
        ocspRequest({
          requests: [single(sha1)],
          extensions: [nonceExtension(Uint8Array.of(1)), nonceExtension(Uint8Array.of(2))],
        }),
    ],
    [
      'an empty nonce extnValue',
      () =>
        ocspRequest({ requests: [single(sha1)], extensions: [extension(OCSP_ID.nonce, new Uint8Array(0))] }),
    ],
    [
      'a nonce whose inner OCTET STRING is empty (04 00)',
      () => ocspRequest({ requests: [single(sha1)], extensions: [nonceExtension(new Uint8Array(0))] }),
    ],
    [
      'a nonce of 129 octets',
      () => ocspRequest({ requests: [single(sha1)], extensions: [nonceExtension(new Uint8Array(129))] }),
    ],
    [
      'a nonce extnValue that is not an OCTET STRING',
      () =>
        ocspRequest({
          requests: [single(sha1)],
          extensions: [extension(OCSP_ID.nonce, Uint8Array.of(1, 2, 3))],
        }),
    ],
    [
      'a critical flag that is not a DER BOOLEAN',
      () =>
        ocspRequest({
          requests: [single(sha1)],
          extensions: [
            derSequence(
              derObjectIdentifier(OCSP_ID.nonce),
              Uint8Array.of(TAG.boolean, 1, 1),
              derOctetString(Uint8Array.of(4, 1, 1)),
            ),
          ],
        }),
    ],
    [
      'a SHA-1 hash of 19 octets',
      () =>
        ocspRequest({
          requests: [
            derSequence(
              derSequence(
                derSequence(derObjectIdentifier('1.3.14.3.2.26')),
                derOctetString(new Uint8Array(19)),
                derOctetString(new Uint8Array(20)),
                Uint8Array.of(TAG.integer, 1, 1),
              ),
            ),
          ],
        }),
    ],
    [
      'a non-minimal serial',
      () =>
        ocspRequest({
          requests: [
            derSequence(
              derSequence(
                derSequence(derObjectIdentifier('1.3.14.3.2.26')),
                derOctetString(new Uint8Array(20)),
                derOctetString(new Uint8Array(20)),
                Uint8Array.of(TAG.integer, 2, 0, 1),
              ),
            ),
          ],
        }),
    ],
    [
      'an element after the CertID',
      () => ocspRequest({ requests: [derSequence(sha1.der, Uint8Array.of(TAG.null, 0))] }),
    ],
    ['a Request without CertID', () => ocspRequest({ requests: [derSequence()] })],
  ])('throws PkiFormatError for %s', (_case, request) => {
    expect(() => parseOcspRequest(request())).toThrow(PkiFormatError);
  });

  it('throws PkiFormatError for garbage, every truncation, trailing octets and BER indefinite lengths', () => {
    const request = ocspRequest({ requests: [single(sha1)], extensions: [nonceExtension(randomBytes(16))] });
    expect(() => parseOcspRequest(new Uint8Array(0))).toThrow(PkiFormatError);
    for (let i = 0; i < 50; i++) expect(() => parseOcspRequest(randomBytes(80))).toThrow(PkiFormatError);
    for (let length = 0; length < request.length; length++) {
      expect(() => parseOcspRequest(request.subarray(0, length))).toThrow(PkiFormatError);
    }
    expect(() => parseOcspRequest(Uint8Array.of(...request, 0, 0))).toThrow(/trailing/);
    const indefinite = Uint8Array.of(0x30, 0x80, ...request.subarray(2), 0, 0);
    expect(() => parseOcspRequest(indefinite)).toThrow(/indefinite/);
    expect(() => parseOcspRequest(pki.caDer)).toThrow(PkiFormatError);
  });
});
