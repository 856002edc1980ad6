import { dnsNameProblem, isDnsHostName, looksLikeHostName, mayBeReadAsDnsName } from './dns-name.rules';

describe('dnsNameProblem', () => {
  it.each([
    'api.example.com',
    '*.example.com',
    'xn--bcher-kva.example',
    'a-b.c9.example',
    'localhost',
    `${'a'.repeat(63)}.example`,
    'XN--BCHER-KVA.example',
    '*.xn--bcher-kva.example',
    '*.example.co.uk',
    '*.corp', // not on the Public Suffix List: a private name space
    '*.mysite.github.io',
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
    ['xn--zz.example', /not a valid A-label/],
    ['api.xn--a.example', /not a valid A-label/],
    ['xn--bcher-kva1.example', /not a valid A-label/],
    ['*.com', /public suffix/],
    ['*.co.uk', /public suffix/],
    ['*.CO.UK', /public suffix/],
    ['*.github.io', /public suffix/], // private section of the list
  ])('refuses %j', (name, why) => expect(dnsNameProblem(name)).toMatch(why));

  it('takes names written like host names, valid or not, as host-name common names', () => {
    expect(looksLikeHostName('API.Example.com')).toBe(true);
    expect(looksLikeHostName('*.com')).toBe(true);
    expect(looksLikeHostName('xn--zz.example')).toBe(true);
    expect(looksLikeHostName('10.0.0.1')).toBe(false);
    expect(looksLikeHostName('payments client')).toBe(false);
    expect(looksLikeHostName('svc')).toBe(false);
  });

  it('takes only valid host-like names as DNS common names', () => {
    expect(isDnsHostName('api.example.com')).toBe(true);
    expect(isDnsHostName('*.com')).toBe(false);
    expect(isDnsHostName('payments client')).toBe(false);
    expect(isDnsHostName('svc')).toBe(false);
  });
});

describe('mayBeReadAsDnsName (what openssl checks against name constraints in a CN)', () => {
  it.each(['device.example.com', '10.0.0.1', 'svc_a.corp', 'a--b.example'])('%s: yes', (name) => {
    expect(mayBeReadAsDnsName(name)).toBe(true);
  });

  it.each(['payments-client', 'Alice Smith', '*.example.com', 'a..b', '-a.b', 'a.b-', 'a-.b', 'é.example'])(
    '%s: no',
    (name) => {
      expect(mayBeReadAsDnsName(name)).toBe(false);
    },
  );
});
