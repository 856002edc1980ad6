import { createPublicKey, randomBytes, verify } from 'node:crypto';

import * as pkijs from 'pkijs';

import { parseCertificate } from './certificate.parser';
import { pkiCrypto } from './crypto-engine';
import { derOctetString } from './der-writer';
import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { buildCertId, type OcspCertId } from './ocsp-cert-id';
import {
  buildOcspErrorResponse,
  buildOcspResponse,
  encodeSingleResponse,
  type OcspResponseInput,
  type OcspSingleResponseInput,
} from './ocsp-response.builder';
import { type OcspBasicResponseInfo, parseOcspResponse } from './ocsp-response.parser';
import { PkiFormatError } from './pki-format.error';
import { createTestPki, type TestPki } from './testing';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const producedAt = new Date('2026-11-22T10:00:00Z');
const thisUpdate = new Date('2026-11-22T09:59:00Z');
const nextUpdate = new Date('2026-11-22T11:00:00Z');

describe('buildOcspResponse', () => {
  let pki: TestPki;
  let leaf: { der: Uint8Array; serialNumberHex: string };
  let certId: OcspCertId;
  const input = (overrides: Partial<OcspResponseInput> = {}): OcspResponseInput => ({
    responses: [{ certId, status: { kind: 'good' }, thisUpdate, nextUpdate }],
    producedAt,
    responderCertificateDer: pki.ocspSignerDer,
    responderPrivateKey: pki.ocspSignerKeys.privateKey,
    ...overrides,
  });
  const basic = async (overrides: Partial<OcspResponseInput> = {}) =>
    parseOcspResponse(await buildOcspResponse(input(overrides))) as OcspBasicResponseInfo;

  beforeAll(async () => {
    pki = await createTestPki('OCSP Response Root');
    leaf = await pki.issueLeaf();
    certId = buildCertId({
      issuerCertificateDer: pki.caDer,
      serialNumberHex: leaf.serialNumberHex,
      hashAlgorithm: 'sha1',
    });
  });

  it('answers good, signed by the delegated responder named by key, with its certificate', async () => {
    const response = await basic();
    expect(response).toMatchObject({
      responseStatus: 'successful',
      producedAt,
      responderKeyHashHex: parseCertificate(pki.ocspSignerDer).subjectKeyIdentifierHex,
      signatureAlgorithm: '1.2.840.10045.4.3.2',
      responses: [
        {
          hashAlgorithm: 'sha1',
          serialNumberHex: leaf.serialNumberHex,
          certIdDer: certId.der,
          status: { kind: 'good' },
          thisUpdate,
          nextUpdate,
        },
      ],
    });
    expect(response.nonce).toBeUndefined();
    expect(response.responderNameDer).toBeUndefined();
    expect(response.certificates.map(hex)).toEqual([hex(pki.ocspSignerDer)]);
    const publicKey = createPublicKey({
      key: Buffer.from(await exportSpkiDer(pki.ocspSignerKeys.publicKey)),
      format: 'der',
      type: 'spki',
    });
    expect(verify('sha256', response.tbsResponseData, publicKey, response.signatureValue)).toBe(true);
  });

  it('answers revoked with the time and the reason when given, including unspecified', async () => {
    const revocationTime = new Date('2026-11-21T08:30:00.500Z');
    const statuses = [
      { kind: 'revoked', revocationTime, reasonCode: 1 },
      { kind: 'revoked', revocationTime, reasonCode: 0 },
      { kind: 'revoked', revocationTime },
      { kind: 'unknown' },
    ] as const;
    const response = await basic({
      responses: statuses.map((status) => ({ certId, status, thisUpdate, nextUpdate })),
    });
    const whole = new Date('2026-11-21T08:30:00Z'); // GeneralizedTime without fractional seconds
    expect(response.responses.map(({ status }) => status)).toEqual([
      { kind: 'revoked', revocationTime: whole, reasonCode: 1 },
      { kind: 'revoked', revocationTime: whole, reasonCode: 0 },
      { kind: 'revoked', revocationTime: whole },
      { kind: 'unknown' },
    ]);
  });

  it('echoes each CertID exactly as the client sent it, whatever its hash algorithm', async () => {
    const sha256 = buildCertId({
      issuerCertificateDer: pki.caDer,
      serialNumberHex: '0102',
      hashAlgorithm: 'sha256',
    });
    const foreign = { ...certId, hashAlgorithm: '2.16.840.1.101.3.4.2.2', der: certId.der };
    const response = await basic({
      responses: [sha256, foreign].map((id) => ({
        certId: id,
        status: { kind: 'unknown' },
        thisUpdate,
        nextUpdate,
      })),
    });
    expect(response.responses.map(({ certIdDer }) => hex(certIdDer))).toEqual([
      hex(sha256.der),
      hex(certId.der),
    ]);
  });

  it('echoes the nonce extnValue unchanged (RFC 9654 2.1)', async () => {
    const nonce = derOctetString(randomBytes(32));
    expect(hex((await basic({ nonce })).nonce!)).toBe(hex(nonce));
  });

  it('leaves nextUpdate out when none is given: newer information is always available (RFC 6960 2.4)', async () => {
    const { responses } = await basic({
      responses: [{ certId, status: { kind: 'unknown' }, thisUpdate }],
    });
    expect(responses[0].status.kind).toBe('unknown');
    expect(responses[0].nextUpdate).toBeUndefined();
  });

  it('takes SingleResponses encoded ahead of time, with the same result', async () => {
    const single: OcspSingleResponseInput = { certId, status: { kind: 'good' }, thisUpdate, nextUpdate };
    const fromObject = await basic({ responses: [single] });
    const fromBytes = await basic({ responses: [encodeSingleResponse(single)] });
    expect(hex(fromBytes.tbsResponseData)).toBe(hex(fromObject.tbsResponseData));
  });

  it('is accepted by pkijs as a response of a delegated responder of the CA', async () => {
    const der = await buildOcspResponse(input({ nonce: derOctetString(randomBytes(16)) }));
    const response = pkijs.OCSPResponse.fromBER(der);
    expect(response.responseStatus.valueBlock.valueDec).toBe(0);
    const basicResponse = pkijs.BasicOCSPResponse.fromBER(
      response.responseBytes!.response.valueBlock.valueHexView,
    );
    const ca = pkijs.Certificate.fromBER(pki.caDer);
    expect(await basicResponse.verify({ trustedCerts: [ca] }, pkiCrypto())).toBe(true);
    const status = await basicResponse.getCertificateStatus(
      pkijs.Certificate.fromBER(leaf.der),
      ca,
      pkiCrypto(),
    );
    expect(status).toEqual({ isForCertificate: true, status: 0 });
  });

  it('may be signed by the CA itself (RFC 6960 4.2.2.2)', async () => {
    const response = await basic({
      responderCertificateDer: pki.caDer,
      responderPrivateKey: pki.caKeys.privateKey,
    });
    expect(response.responderKeyHashHex).toBe(parseCertificate(pki.caDer).subjectKeyIdentifierHex);
  });

  it('refuses a key that does not belong to the responder certificate', async () => {
    const other = await generateEcKeyPair(false);
    await expect(buildOcspResponse(input({ responderPrivateKey: other.privateKey }))).rejects.toThrow(
      /does not match the responder certificate/,
    );
  });

  it('refuses a responder certificate that may not sign OCSP responses', async () => {
    const client = await pki.issueLeaf(['clientAuth']);
    await expect(
      buildOcspResponse(
        input({ responderCertificateDer: client.der, responderPrivateKey: client.keys.privateKey }),
      ),
    ).rejects.toThrow(/OCSP signer/);
    await expect(
      buildOcspResponse(input({ responderCertificateDer: Uint8Array.of(0x30, 0) })),
    ).rejects.toThrow(PkiFormatError);
  });

  it.each<[string, () => Partial<OcspResponseInput>]>([
    ['no SingleResponse', () => ({ responses: [] })],
    [
      'a nextUpdate not after thisUpdate',
      () => ({ responses: [{ certId, status: { kind: 'good' }, thisUpdate, nextUpdate: thisUpdate }] }),
    ],
    [
      'an invalid reason code',
      () => ({
        responses: [
          {
            certId,
            status: { kind: 'revoked', revocationTime: thisUpdate, reasonCode: 7 },
            thisUpdate,
            nextUpdate,
          },
        ],
      }),
    ],
    ['an empty nonce', () => ({ nonce: new Uint8Array(0) })],
    ['a nonce over 128 octets', () => ({ nonce: derOctetString(new Uint8Array(129)) })],
  ])('refuses %s', async (_case, overrides) => {
    await expect(buildOcspResponse(input(overrides()))).rejects.toThrow(RangeError);
  });

  it('refuses a CertID or SingleResponse that is not one DER SEQUENCE', async () => {
    const broken = { ...certId, der: certId.der.subarray(1) };
    await expect(
      buildOcspResponse(
        input({ responses: [{ certId: broken, status: { kind: 'good' }, thisUpdate, nextUpdate }] }),
      ),
    ).rejects.toThrow(PkiFormatError);
    await expect(buildOcspResponse(input({ responses: [Uint8Array.of(4, 0)] }))).rejects.toThrow(
      PkiFormatError,
    );
  });
});

describe('buildOcspErrorResponse', () => {
  it.each([
    ['malformedRequest', '30030a0101'],
    ['internalError', '30030a0102'],
    ['tryLater', '30030a0103'],
    ['sigRequired', '30030a0105'],
    ['unauthorized', '30030a0106'],
  ] as const)('writes %s as the bare status (RFC 6960 4.2.1)', (status, expected) => {
    const der = buildOcspErrorResponse(status);
    expect(hex(der)).toBe(expected);
    expect(parseOcspResponse(der)).toEqual({ responseStatus: status });
  });

  it('refuses successful, which needs a signed response', () => {
    expect(() => buildOcspErrorResponse('successful' as 'tryLater')).toThrow(RangeError);
    expect(() => buildOcspErrorResponse('toString' as 'tryLater')).toThrow(RangeError);
  });
});
