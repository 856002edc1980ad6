import fc from 'fast-check';

import { buildCertId } from './ocsp-cert-id';
import {
  contextConstructed,
  derElement,
  derObjectIdentifier,
  derOctetString,
  derSequence,
} from './der-writer';
import { OCSP_ID } from './ocsp-object-identifier';
import { parseOcspRequest } from './ocsp-request.parser';
import { PkiFormatError } from './pki-format.error';
import { createTestPki } from './testing';

/**
 * DER fuzz of the OCSP request parser: whatever arrives on the public surface, the parser
 * either reads an OCSPRequest (RFC 6960 4.1.1) or throws its own PkiFormatError, which the responder
 * answers with `malformedRequest`; never a RangeError, a TypeError or a hang that would be a 500.
 */

/** OCSPRequest { TBSRequest { requestList { Request { CertID } ... }, [2] { nonce } } }. */
function ocspRequestDer(certIds: Uint8Array[], nonce?: Uint8Array): Uint8Array {
  const extensions = nonce
    ? [
        derElement(
          contextConstructed(2),
          derSequence(derSequence(derObjectIdentifier(OCSP_ID.nonce), derOctetString(derOctetString(nonce)))),
        ),
      ]
    : [];
  return derSequence(derSequence(derSequence(...certIds.map((id) => derSequence(id))), ...extensions));
}

/** Edits a fuzzer makes to valid DER: flipped bits, cut, inserted or removed octets, wild length octets. */
type Edit =
  | { kind: 'xor'; at: number; mask: number }
  | { kind: 'set'; at: number; value: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; value: number }
  | { kind: 'remove'; at: number };

const position = fc.nat({ max: 10_000 });
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('xor' as const), at: position, mask: fc.integer({ min: 1, max: 255 }) }),
  // 0x80..0x84 and 0xff are the length octets that break naive readers (indefinite, long forms).
  fc.record({
    kind: fc.constant('set' as const),
    at: position,
    value: fc.constantFrom(0, 0x7f, 0x80, 0x81, 0x82, 0x84, 0xff),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('insert' as const), at: position, value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('remove' as const), at: position }),
);

function applyEdits(der: Uint8Array, edits: Edit[]): Uint8Array {
  let bytes = [...der];
  for (const e of edits) {
    const at = bytes.length === 0 ? 0 : e.at % bytes.length;
    if (e.kind === 'xor') bytes[at] ^= e.mask;
    else if (e.kind === 'set') bytes[at] = e.value;
    else if (e.kind === 'truncate') bytes = bytes.slice(0, at);
    else if (e.kind === 'insert') bytes.splice(at, 0, e.value);
    else bytes.splice(at, 1);
  }
  return Uint8Array.from(bytes);
}

/** The parser's contract: a result with at least one CertID, or a PkiFormatError. */
function parsesOrRefuses(der: Uint8Array): void {
  try {
    expect(parseOcspRequest(der).certIds.length).toBeGreaterThan(0);
  } catch (error) {
    if (!(error instanceof PkiFormatError)) throw new Error(`not a PkiFormatError: ${String(error)}`);
  }
}

describe('OCSP request parser under fuzzing', () => {
  let caDer: Uint8Array;
  // Two digits per octet, as serialToHex prints a serial.
  const serialHex = fc
    .bigInt({ min: 1n, max: 2n ** 159n - 1n })
    .map((n) => n.toString(16).toUpperCase())
    .map((hex) => (hex.length % 2 ? `0${hex}` : hex));
  let validRequest: fc.Arbitrary<{ der: Uint8Array; serials: string[]; nonce?: Uint8Array }>;

  beforeAll(async () => {
    caDer = (await createTestPki('Fuzz Root')).caDer;
    validRequest = fc
      .record(
        {
          serials: fc.array(serialHex, { minLength: 1, maxLength: 4 }),
          hash: fc.constantFrom('sha1' as const, 'sha256' as const),
          nonce: fc.uint8Array({ minLength: 1, maxLength: 32 }),
        },
        { requiredKeys: ['serials', 'hash'] },
      )
      .map(({ serials, hash, nonce }) => {
        const certIds = serials.map(
          (serialNumberHex) =>
            buildCertId({ issuerCertificateDer: caDer, serialNumberHex, hashAlgorithm: hash }).der,
        );
        return { der: ocspRequestDer(certIds, nonce), serials, nonce };
      });
  });

  it('reads every valid request back: the serials in order and the nonce to echo', () => {
    fc.assert(
      fc.property(validRequest, ({ der, serials, nonce }) => {
        const parsed = parseOcspRequest(der);
        expect(parsed.certIds.map((c) => c.serialNumberHex)).toEqual(serials);
        if (nonce) expect(Buffer.from(parsed.nonce!).equals(Buffer.from(derOctetString(nonce)))).toBe(true);
        else expect(parsed.nonce).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('parses or refuses with PkiFormatError any random octets', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), parsesOrRefuses), { numRuns: 2_000 });
  });

  it('parses or refuses with PkiFormatError any valid request after 1 to 4 random edits', () => {
    fc.assert(
      fc.property(validRequest, fc.array(edit, { minLength: 1, maxLength: 4 }), ({ der }, edits) =>
        parsesOrRefuses(applyEdits(der, edits)),
      ),
      { numRuns: 2_000 },
    );
  });

  it('refuses nesting and length abuse quickly (no stack overflow, no huge allocation)', () => {
    const deep = Uint8Array.from([...Array(5_000).fill([0x30, 0x80]).flat()]);
    const claimsHuge = Uint8Array.of(0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x30, 0x00);
    const tooLongLength = Uint8Array.of(0x30, 0x89, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    for (const der of [deep, claimsHuge, tooLongLength]) {
      expect(() => parseOcspRequest(der)).toThrow(PkiFormatError);
    }
  });
});
