import { AcmeProblem } from './acme-problem';
import { nameAllowed, readIdentifiers } from './identifier-policy';

const problemOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AcmeProblem ? error.type : 'other';
  }
  return undefined;
};

describe('ACME identifiers', () => {
  it('lower-cases and de-duplicates DNS names', () => {
    expect(
      readIdentifiers(
        [
          { type: 'dns', value: 'App.Example.test' },
          { type: 'dns', value: 'app.example.test' },
        ],
        null,
      ),
    ).toEqual(['app.example.test']);
  });

  it('rejects names outside the policy, wildcards and invalid names as rejectedIdentifier', () => {
    const dns = (value: string) => [{ type: 'dns', value }];
    expect(problemOf(() => readIdentifiers(dns('a.other.test'), ['example.test']))).toBe(
      'rejectedIdentifier',
    );
    expect(problemOf(() => readIdentifiers(dns('badexample.test'), ['example.test']))).toBe(
      'rejectedIdentifier',
    );
    expect(problemOf(() => readIdentifiers(dns('*.example.test'), null))).toBe('rejectedIdentifier');
    expect(problemOf(() => readIdentifiers(dns('a..b'), null))).toBe('rejectedIdentifier');
    expect(problemOf(() => readIdentifiers([{ type: 'ip', value: '10.0.0.1' }], null))).toBe(
      'unsupportedIdentifier',
    );
    expect(problemOf(() => readIdentifiers([], null))).toBe('malformed');
  });

  it('matches suffixes label-wise', () => {
    expect(nameAllowed('example.test', ['example.test'])).toBe(true);
    expect(nameAllowed('a.b.example.test', ['EXAMPLE.test'])).toBe(true);
    expect(nameAllowed('notexample.test', ['example.test'])).toBe(false);
  });
});
