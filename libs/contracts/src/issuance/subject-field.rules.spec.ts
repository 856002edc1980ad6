import 'reflect-metadata';
import { CaError } from '../common/ca-error';
import { validateWireDto } from '../common/validate-dto';
import { InitializeCaRequest } from './initialize-ca.dto';
import { IssueCertificateRequest } from './issue-certificate.dto';
import { ISO_3166_ALPHA_2_CODES } from './iso-3166-country-codes';
import { countCharacters, isAssignedCountryCode, subjectFieldProblem } from './subject-field.rules';

describe('subjectFieldProblem', () => {
  it.each(['Acme', 'Zürich Büro', '中文名称', 'a', '😀'.repeat(64), 'x'.repeat(64), 'Inner  spaces ok'])(
    'accepts %j',
    (value) => expect(subjectFieldProblem(value, 64)).toBeUndefined(),
  );

  it.each([
    ['', /empty/],
    [' Acme', /white space/],
    ['Acme ', /white space/],
    ['Acme\u00a0', /white space/],
    ['Ac\u0000me', /control/],
    ['Ac\u0007me', /control/], // BEL
    ['Ac\nme', /control/],
    ['Ac\u007fme', /control/], // DEL
    ['Ac\u0085me', /control/], // C1 NEL
    ['Ac\ud800me', /surrogate/],
    ['x'.repeat(65), /at most 64/],
    ['😀'.repeat(65), /at most 64/],
  ])('refuses %j', (value, why) => expect(subjectFieldProblem(value, 64)).toMatch(why));

  it('counts code points, not UTF-16 units', () => {
    expect(countCharacters('😀😀')).toBe(2);
    expect('😀😀'.length).toBe(4);
  });
});

describe('isAssignedCountryCode', () => {
  it('holds the 249 assigned codes', () => expect(ISO_3166_ALPHA_2_CODES.size).toBe(249));
  it.each(['US', 'GB', 'DE', 'SS', 'AX'])('accepts %s', (code) =>
    expect(isAssignedCountryCode(code)).toBe(true),
  );
  it.each(['XX', 'UK', 'EU', 'XK', 'ZZ', 'us', 'USA'])('refuses %s', (code) =>
    expect(isAssignedCountryCode(code)).toBe(false),
  );
});

describe('the subject rules on request bodies', () => {
  const issue = {
    clientId: 'c',
    commonName: 'payments-client',
    organization: 'Acme',
    organizationalUnit: 'Payments',
    country: 'US',
    validityDays: 30,
  };

  async function fields(type: new () => object, body: object): Promise<string[]> {
    try {
      await validateWireDto(type, body);
      return [];
    } catch (error) {
      return ((error as CaError).errors ?? []).map(({ field }) => field);
    }
  }

  it.each([
    ['commonName', ' padded'],
    ['organization', 'Ac\u0007me'],
    ['organizationalUnit', 'x'.repeat(65)],
    ['country', 'UK'],
    ['country', 'XX'],
  ])('refuses %s %j on a certificate request', async (field, value) => {
    expect(await fields(IssueCertificateRequest, { ...issue, [field]: value })).toEqual([field]);
  });

  it('accepts 64 astral characters, which are 128 UTF-16 units', async () => {
    expect(await fields(IssueCertificateRequest, { ...issue, commonName: '😀'.repeat(64) })).toEqual([]);
  });

  it.each([
    ['commonName', 'Root\u0000'],
    ['organization', 'Acme '],
    ['country', 'UK'],
  ])('refuses %s %j on a CA request', async (field, value) => {
    const body = {
      commonName: 'Root',
      organization: 'Acme',
      country: 'US',
      validityYears: 5,
      [field]: value,
    };
    expect(await fields(InitializeCaRequest, body)).toEqual([field]);
  });
});
