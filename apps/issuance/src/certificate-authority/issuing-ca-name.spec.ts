import { UB_NAME_ATTRIBUTE } from '@ca/contracts';
import { issuingCaBaseName, issuingCaSubjectName } from './issuing-ca-name';

describe('issuing CA names', () => {
  it('numbers every issuing CA after the first', () => {
    expect(issuingCaSubjectName('Acme')).toBe('Acme Issuing CA');
    expect(issuingCaSubjectName('Acme', 3)).toBe('Acme Issuing CA 3');
  });

  it('finds the name an issuing CA was named after, so a later one under a corporate root is numbered from it', () => {
    for (const generation of [1, 2, 12]) {
      expect(issuingCaBaseName(issuingCaSubjectName('Acme Partner', generation))).toBe('Acme Partner');
    }
    // A corporate CA that renamed what it certified: the whole name is the base.
    expect(issuingCaBaseName('Corp Issuing 7')).toBe('Corp Issuing 7');
    expect(issuingCaBaseName(' Issuing CA')).toBe(' Issuing CA');
  });

  it('keeps a renumbered long name within ub-common-name (RFC 5280 appendix A)', () => {
    const first = issuingCaSubjectName('x'.repeat(80));
    const next = issuingCaSubjectName(issuingCaBaseName(first), 2);
    expect(next.length).toBeLessThanOrEqual(UB_NAME_ATTRIBUTE);
    expect(next.endsWith(' Issuing CA 2')).toBe(true);
  });
});
