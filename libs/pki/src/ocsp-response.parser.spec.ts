import { randomBytes } from 'node:crypto';

import { encodeGeneralizedTimeDer } from './der-time';
import {
  contextConstructed,
  contextPrimitive,
  derElement,
  derEnumerated,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  TAG,
} from './der-writer';
import { encodeName } from './name';
import { buildCertId, type OcspCertId } from './ocsp-cert-id';
import { OCSP_ID } from './ocsp-object-identifier';
import { parseOcspResponse } from './ocsp-response.parser';
import { PkiFormatError } from './pki-format.error';
import { createTestPki, type TestPki } from './testing';

const producedAt = new Date('2026-11-22T10:00:00Z');
const thisUpdate = new Date('2026-11-22T09:00:00Z');
const ecdsaWithSha256 = derSequence(derObjectIdentifier('1.2.840.10045.4.3.2'));

/** An OCSPResponse around a BasicOCSPResponse written field by field (RFC 6960 4.2.1); not signed. */
function response(responseData: Uint8Array, options: { certs?: Uint8Array[]; responseType?: string } = {}) {
  const basic = derSequence(
    responseData,
    ecdsaWithSha256,
    derElement(TAG.bitString, Uint8Array.of(0), randomBytes(70)),
    ...(options.certs ? [derElement(contextConstructed(0), derSequence(...options.certs))] : []),
  );
  return derSequence(
    derEnumerated(0),
    derElement(
      contextConstructed(0),
      derSequence(derObjectIdentifier(options.responseType ?? OCSP_ID.basic), derOctetString(basic)),
    ),
  );
}

describe('parseOcspResponse', () => {
  let pki: TestPki;
  let certId: OcspCertId;
  const nameDer = new Uint8Array(encodeName({ commonName: 'Responder' }).toSchema().toBER(false));

  beforeAll(async () => {
    pki = await createTestPki('OCSP Parser Root');
    certId = buildCertId({ issuerCertificateDer: pki.caDer, serialNumberHex: '0A', hashAlgorithm: 'sha1' });
  });

  it('reads a responder named byName, an explicit v1, no nextUpdate and extensions it does not know', () => {
    const single = derSequence(
      certId.der,
      Uint8Array.of(contextPrimitive(0), 0),
      encodeGeneralizedTimeDer(thisUpdate),
      derElement(
        contextConstructed(1),
        derSequence(derSequence(derObjectIdentifier('1.2.3.4'), derOctetString(Uint8Array.of(5, 0)))),
      ),
    );
    const data = derSequence(
      derElement(contextConstructed(0), Uint8Array.of(TAG.integer, 1, 0)),
      derElement(contextConstructed(1), nameDer),
      encodeGeneralizedTimeDer(producedAt),
      derSequence(single),
      derElement(
        contextConstructed(1),
        derSequence(
          derSequence(
            derObjectIdentifier('1.2.3.5'),
            Uint8Array.of(TAG.boolean, 1, 0xff),
            derOctetString(Uint8Array.of(5, 0)),
          ),
        ),
      ),
    );
    const info = parseOcspResponse(response(data, { certs: [pki.caDer, pki.ocspSignerDer] }));
    expect(info).toMatchObject({
      responseStatus: 'successful',
      producedAt,
      responderNameDer: nameDer,
      certificates: [pki.caDer, pki.ocspSignerDer],
      responses: [{ hashAlgorithm: 'sha1', serialNumberHex: '0A', status: { kind: 'good' }, thisUpdate }],
    });
    expect(info).not.toHaveProperty('responderKeyHashHex');
    expect(info).not.toHaveProperty('nonce');
    expect(info).not.toHaveProperty('responses.0.nextUpdate');
  });

  it('reads the error statuses', () => {
    for (const [code, responseStatus] of [
      [1, 'malformedRequest'],
      [2, 'internalError'],
      [3, 'tryLater'],
      [5, 'sigRequired'],
      [6, 'unauthorized'],
    ] as const) {
      expect(parseOcspResponse(derSequence(derEnumerated(code)))).toEqual({ responseStatus });
    }
  });

  it.each([
    ['status 4, which is not used', () => derSequence(derEnumerated(4))],
    ['a successful status without responseBytes', () => derSequence(derEnumerated(0))],
    [
      'an error status with responseBytes',
      () => derSequence(derEnumerated(1), derElement(contextConstructed(0), derSequence())),
    ],
    [
      'another response type',
      () =>
        response(derSequence(derElement(contextConstructed(2), derOctetString(new Uint8Array(20)))), {
          responseType: '1.2.3.4',
        }),
    ],
    [
      'a ResponseData without responses',
      () =>
        response(
          derSequence(
            derElement(contextConstructed(2), derOctetString(new Uint8Array(20))),
            encodeGeneralizedTimeDer(producedAt),
          ),
        ),
    ],
    [
      'a SingleResponse with status [3]',
      () =>
        response(
          derSequence(
            derElement(contextConstructed(2), derOctetString(new Uint8Array(20))),
            encodeGeneralizedTimeDer(producedAt),
            derSequence(
              derSequence(
                certId.der,
                Uint8Array.of(contextPrimitive(3), 0),
                encodeGeneralizedTimeDer(thisUpdate),
              ),
            ),
          ),
        ),
    ],
    ['a certificate', () => pki.caDer],
    ['an empty input', () => new Uint8Array(0)],
  ])('throws PkiFormatError for %s', (_case, der) => {
    expect(() => parseOcspResponse(der())).toThrow(PkiFormatError);
  });

  it('throws PkiFormatError for every truncation and for trailing octets', () => {
    const data = derSequence(
      derElement(contextConstructed(2), derOctetString(new Uint8Array(20))),
      encodeGeneralizedTimeDer(producedAt),
      derSequence(
        derSequence(certId.der, Uint8Array.of(contextPrimitive(2), 0), encodeGeneralizedTimeDer(thisUpdate)),
      ),
    );
    const der = response(data);
    expect(parseOcspResponse(der).responseStatus).toBe('successful');
    for (let length = 0; length < der.length; length++) {
      expect(() => parseOcspResponse(der.subarray(0, length))).toThrow(PkiFormatError);
    }
    expect(() => parseOcspResponse(Uint8Array.of(...der, 0))).toThrow(PkiFormatError);
  });
});
