import { isNameAllowedByPolicy, isUsageAllowedByPolicy, namesOutsidePolicy } from './issuance-policy.rules';

describe('isNameAllowedByPolicy', () => {
  const policy = ['example.com', 'corp'];

  it('allows every name when the tenant has no policy', () => {
    expect(isNameAllowedByPolicy('anything.example.org', null)).toBe(true);
  });

  it('allows nothing with an empty policy', () => {
    expect(isNameAllowedByPolicy('example.com', [])).toBe(false);
  });

  it.each([
    'example.com',
    'api.example.com',
    'a.b.example.com',
    '*.example.com',
    'API.Example.COM',
    'db.corp',
  ])('allows %s under example.com / corp', (name) => expect(isNameAllowedByPolicy(name, policy)).toBe(true));

  it.each([
    'badexample.com', // ends with the suffix, but not at a label boundary
    'example.com.evil.net',
    'example.org',
    'com',
    '*.com',
    'notcorp',
    '10.0.0.1',
    '2001:db8::1',
  ])('refuses %s under example.com / corp', (name) =>
    expect(isNameAllowedByPolicy(name, policy)).toBe(false),
  );

  it('refuses an IP address even when a suffix matches its last octets', () => {
    expect(isNameAllowedByPolicy('10.0.0.1', ['0.1'])).toBe(false);
  });

  it('compares suffixes case-insensitively too', () => {
    expect(isNameAllowedByPolicy('api.example.com', ['EXAMPLE.com'])).toBe(true);
  });
});

describe('namesOutsidePolicy', () => {
  it('lists the refused names in order', () => {
    expect(namesOutsidePolicy(['a.example.com', 'b.test', 'c.example.org'], ['example.com'])).toEqual([
      'b.test',
      'c.example.org',
    ]);
  });

  it('lists none without a policy', () => {
    expect(namesOutsidePolicy(['b.test'], null)).toEqual([]);
  });
});

describe('isUsageAllowedByPolicy', () => {
  it('allows a Client or Server leaf when its own usage is listed', () => {
    expect(isUsageAllowedByPolicy('Client', ['Client'])).toBe(true);
    expect(isUsageAllowedByPolicy('Server', ['Client'])).toBe(false);
    expect(isUsageAllowedByPolicy('Server', ['Server'])).toBe(true);
    expect(isUsageAllowedByPolicy('Client', ['Server'])).toBe(false);
  });

  it('allows ClientAndServer only when both are listed', () => {
    expect(isUsageAllowedByPolicy('ClientAndServer', ['Client', 'Server'])).toBe(true);
    expect(isUsageAllowedByPolicy('ClientAndServer', ['Client'])).toBe(false);
    expect(isUsageAllowedByPolicy('ClientAndServer', ['Server'])).toBe(false);
  });
});
