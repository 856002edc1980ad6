import { decodeTime, encodeGeneralizedTimeDer, encodeTimeDer } from './der-time';
import { TAG } from './der-writer';
import { PkiFormatError } from './pki-format.error';
import { encodeTime } from './validity-time';

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
const text = (value: string) => new Uint8Array(Buffer.from(value, 'latin1'));

describe('DER times', () => {
  it.each([
    '1950-01-01T00:00:00Z',
    '1999-12-31T23:59:59Z',
    '2026-11-22T01:02:03.999Z',
    '2049-12-31T23:59:59Z',
    '2050-01-01T00:00:00Z',
    '2062-06-26T00:33:37Z',
    '1949-12-31T23:59:59Z',
    '9999-12-31T23:59:59Z',
    '0001-01-01T00:00:00Z',
  ])('writes %s with the octets of encodeTime (RFC 5280 4.1.2.5 / 5.1.2.4)', (iso) => {
    const date = new Date(iso);
    expect(Buffer.from(encodeTimeDer(date))).toEqual(Buffer.from(encodeTime(date).toSchema().toBER(false)));
  });

  it('writes GeneralizedTime for OCSP whatever the year', () => {
    expect(latin1(encodeGeneralizedTimeDer(new Date('2026-03-04T05:06:07.890Z')))).toBe(
      '\x18\x0f20260304050607Z',
    );
  });

  it('rejects dates that cannot be written', () => {
    expect(() => encodeTimeDer(new Date('nope'))).toThrow(RangeError);
    expect(() => encodeGeneralizedTimeDer(new Date('+010000-01-01T00:00:00Z'))).toThrow(RangeError);
  });

  it('reads both forms back', () => {
    expect(decodeTime(TAG.utcTime, text('491231235959Z'), 't', true)).toEqual(
      new Date('2049-12-31T23:59:59Z'),
    );
    expect(decodeTime(TAG.utcTime, text('500101000000Z'), 't', true)).toEqual(
      new Date('1950-01-01T00:00:00Z'),
    );
    expect(decodeTime(TAG.generalizedTime, text('20500101000000Z'), 't', true)).toEqual(
      new Date('2050-01-01T00:00:00Z'),
    );
    expect(decodeTime(TAG.generalizedTime, text('20260101000000Z'), 't', false)).toEqual(
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(decodeTime(TAG.generalizedTime, text('00040229000000Z'), 't', false).getUTCFullYear()).toBe(4);
  });

  it.each([
    ['GeneralizedTime for 2026 where the RFC 5280 rule applies', TAG.generalizedTime, '20260101000000Z'],
    ['fractional seconds', TAG.generalizedTime, '20500101000000.5Z'],
    ['a local time', TAG.utcTime, '260101000000'],
    ['an offset', TAG.utcTime, '260101000000+0100'],
    ['no seconds', TAG.utcTime, '2601010000Z'],
    ['month 13', TAG.utcTime, '261301000000Z'],
    ['February 30', TAG.utcTime, '260230000000Z'],
    ['hour 24', TAG.utcTime, '260101240000Z'],
    ['another tag', TAG.octetString, '260101000000Z'],
  ])('rejects %s', (_case, tag, value) => {
    expect(() => decodeTime(tag, text(value), 'thisUpdate', true)).toThrow(PkiFormatError);
  });
});
