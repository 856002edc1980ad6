import { dnsNameProblem, isDnsHostName } from './dns-name.rules';

describe('dnsNameProblem', () => {
  it.each([
    'api.example.com',
    '*.example.com',
    'xn--bcher-kva.example',
    'a-b.c9.example',
    'localhost',
    `${'a'.repeat(63)}.example`,
  ])('accepts %s', (name) => expect(dnsNameProblem(name)).toBeUndefined());

  it.each([
    ['', /empty/],
    ['10.0.0.1', /IP addresses/],
    ['2001:db8::1', /IP addresses/],
    ['*.*.example.com', /left-most/],
    ['api.*.example.com', /left-most/],
    ['f*o.example.com', /left-most/],
    ['*', /followed by a domain/],
    ['a..example.com', /empty labels/],
    ['.example.com', /empty labels/],
    ['example.com.', /end with a dot/],
    [`${'a'.repeat(64)}.example`, /63/],
    [`${'a.'.repeat(126)}ab`, /253/],
    ['-api.example.com', /letters, digits/],
    ['under_score.example.com', /letters, digits/],
    ['bücher.example', /A-labels/],
  ])('refuses %j', (name, why) => expect(dnsNameProblem(name)).toMatch(why));

  it('takes only host-like names as DNS common names', () => {
    expect(isDnsHostName('api.example.com')).toBe(true);
    expect(isDnsHostName('payments client')).toBe(false);
    expect(isDnsHostName('svc')).toBe(false);
  });
});
