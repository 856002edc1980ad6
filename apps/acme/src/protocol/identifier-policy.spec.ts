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

  it('accepts a wildcard as the whole left-most label, inside the policy like any name', () => {
    const dns = (value: string) => [{ type: 'dns', value }];
    expect(
      readIdentifiers([...dns('*.Wild.example.test'), ...dns('wild.example.test')], ['example.test']),
    ).toEqual(['*.wild.example.test', 'wild.example.test']);
    expect(problemOf(() => readIdentifiers(dns('*.example.test'), ['a.example.test']))).toBe(
      'rejectedIdentifier',
    );
    for (const bad of ['*.com', '*.co.uk', 'a.*.example.test', '*.*.example.test', 'w*.example.test']) {
      expect(problemOf(() => readIdentifiers(dns(bad), null))).toBe('rejectedIdentifier');
    }
  });

  it('rejects names outside the policy and invalid names as rejectedIdentifier', () => {
    const dns = (value: string) => [{ type: 'dns', value }];
    expect(problemOf(() => readIdentifiers(dns('a.other.test'), ['example.test']))).toBe(
      'rejectedIdentifier',
    );
    expect(problemOf(() => readIdentifiers(dns('badexample.test'), ['example.test']))).toBe(
      'rejectedIdentifier',
    );
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
