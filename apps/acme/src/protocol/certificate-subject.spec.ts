import { acmeCommonName } from './certificate-subject';

describe('the CN of an ACME certificate', () => {
  it('is the first identifier', () => {
    expect(acmeCommonName(['a.example.test', 'b.example.test'])).toBe('a.example.test');
  });

  it('skips a name too long for a CN (RFC 5280 ub-common-name, 64)', () => {
    const long = `${'a'.repeat(60)}.example.test`;
    expect(acmeCommonName([long, 'b.example.test'])).toBe('b.example.test');
    expect(acmeCommonName([`${'a'.repeat(51)}.example.test`])).toHaveLength(64);
  });

  it('is absent when no identifier fits in one', () => {
    expect(acmeCommonName([`${'a'.repeat(60)}.example.test`])).toBeUndefined();
  });
});
