import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { decodeName, encodeName } from './name';

const toDer = (rdns: pkijs.RelativeDistinguishedNames) => Buffer.from(rdns.toSchema().toBER(false));

describe('encodeName', () => {
  it('writes one single-valued RDN per attribute in the order C, O, OU, CN', () => {
    const der = toDer(
      encodeName({ commonName: 'Y', organizationalUnit: 'X', organization: 'Acme', country: 'US' }),
    );
    expect(der.toString('hex')).toBe(
      [
        '3034', // Name: SEQUENCE OF RelativeDistinguishedName
        '310b300906035504061302' + Buffer.from('US').toString('hex'), // SET { C PrintableString }
        '310d300b060355040a0c04' + Buffer.from('Acme').toString('hex'), // SET { O UTF8String }
        '310a3008060355040b0c01' + Buffer.from('X').toString('hex'), // SET { OU UTF8String }
        '310a300806035504030c01' + Buffer.from('Y').toString('hex'), // SET { CN UTF8String }
      ].join(''),
    );
  });

  it('leaves out absent attributes', () => {
    const rdns = asn1js.fromBER(toDer(encodeName({ commonName: 'Only' }))).result as asn1js.Sequence;
    expect(rdns.valueBlock.value).toHaveLength(1);
  });

  it('encodes non-ASCII text as UTF-8', () => {
    const name = { commonName: 'Zürich Root – 東京', organization: 'Ærø A/S' };
    expect(decodeName(pkijs.RelativeDistinguishedNames.fromBER(toDer(encodeName(name))))).toEqual(name);
  });

  it.each([
    [{ commonName: '' }, /commonName must have 1 to 64/],
    [{ commonName: 'x'.repeat(65) }, /commonName must have 1 to 64/],
    [{ commonName: 'x', organizationalUnit: '' }, /organizationalUnit must have 1 to 64/],
    [{ commonName: 'x', country: 'us' }, /country must be two uppercase letters/],
    [{ commonName: 'x', country: 'USA' }, /country must be two uppercase letters/],
  ])('rejects %j', (name, message) => {
    expect(() => encodeName(name)).toThrow(message);
  });

  it('counts characters, not UTF-16 units, against the 64 upper bound', () => {
    expect(() => encodeName({ commonName: '😀'.repeat(64) })).not.toThrow();
  });
});

describe('decodeName', () => {
  it('round-trips encodeName', () => {
    const name = { commonName: 'Y', organizationalUnit: 'X', organization: 'Acme', country: 'US' };
    expect(decodeName(pkijs.RelativeDistinguishedNames.fromBER(toDer(encodeName(name))))).toEqual(name);
  });

  it('also reads a multi-valued RDN as other software writes it', () => {
    const multiValued = new pkijs.RelativeDistinguishedNames({
      typesAndValues: [
        new pkijs.AttributeTypeAndValue({
          type: '2.5.4.10',
          value: new asn1js.PrintableString({ value: 'Acme' }),
        }),
        new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: 'Y' }) }),
      ],
    });
    expect(decodeName(pkijs.RelativeDistinguishedNames.fromBER(toDer(multiValued)))).toEqual({
      commonName: 'Y',
      organization: 'Acme',
    });
  });
});
