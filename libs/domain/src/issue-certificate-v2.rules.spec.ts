import 'reflect-metadata';
import {
  CaError,
  FieldError,
  IssueCertificateV2Request,
  AcmeCertificateRequest,
  AcmeCertificateWithoutCnRequest,
} from '@ca/contracts';
import { validateDto } from './validate-request';

/** The rules across fields run inside validateDto, so the gateway applies them before issuance. */
async function errorsOf(
  body: object,
  dto: typeof IssueCertificateV2Request = IssueCertificateV2Request,
): Promise<FieldError[]> {
  try {
    await validateDto(dto, body);
    return [];
  } catch (error) {
    return (error as CaError).errors ?? [];
  }
}

const server = {
  clientId: 'web',
  commonName: 'api.example.com',
  organization: 'Acme',
  organizationalUnit: 'Web',
  country: 'US',
  validityDays: 90,
  usage: 'Server',
  subjectAlternativeNames: ['api.example.com'],
};

describe('server common names', () => {
  it('accepts a host-name CN in any case, or one missing from a list with room', async () => {
    expect(await errorsOf({ ...server, commonName: 'API.Example.COM' })).toEqual([]);
    expect(await errorsOf({ ...server, commonName: 'www.example.com' })).toEqual([]);
    expect(await errorsOf({ ...server, commonName: 'Payments API' })).toEqual([]);
  });

  it.each([
    ['xn--zz.example', /A-label/],
    ['*.co.uk', /public suffix/],
  ])('refuses the CN %j, which would be a SAN', async (commonName, why) => {
    const errors = await errorsOf({ ...server, commonName });
    expect(errors.map(({ field }) => field)).toEqual(['commonName']);
    expect(errors[0].message).toMatch(why);
  });

  it('refuses a host-name CN that is not among 50 SANs, as it cannot be added', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `h${i}.example.com`);
    const errors = await errorsOf({ ...server, subjectAlternativeNames: names });
    expect(errors).toEqual([
      { field: 'commonName', message: expect.stringMatching(/one of subjectAlternativeNames/) },
    ]);
    expect(
      await errorsOf({ ...server, subjectAlternativeNames: [...names.slice(1), 'API.example.com'] }),
    ).toEqual([]);
  });

  it('leaves the CN of a client certificate alone', async () => {
    const client = { ...server, usage: 'Client', commonName: 'xn--zz.example', subjectAlternativeNames: [] };
    expect(await errorsOf(client)).toEqual([]);
  });

  it('refuses an invalid A-label or a public-suffix wildcard among the SANs by entry', async () => {
    const errors = await errorsOf({
      ...server,
      subjectAlternativeNames: ['api.example.com', '*.com', 'xn--zz.example'],
    });
    expect(errors.map(({ field }) => field)).toEqual([
      'subjectAlternativeNames[1]',
      'subjectAlternativeNames[2]',
    ]);
  });
});

describe('custom extensions', () => {
  it('keeps a key that names an Object.prototype method, and counts it against the limit', async () => {
    const request = await validateDto(IssueCertificateV2Request, {
      ...server,
      customExtensions: { toString: 'a', valueOf: 'b' },
    });
    expect(request.customExtensions).toEqual({ toString: 'a', valueOf: 'b' });
    const eleven = Object.fromEntries(
      ['toString', ...Array.from({ length: 10 }, (_, i) => `k${i}`)].map((key) => [key, 'v']),
    );
    expect(await errorsOf({ ...server, customExtensions: eleven })).toEqual([
      { field: 'customExtensions', message: 'at most 10 entries' },
    ]);
  });

  it('counts keys and values in characters (code points), so 255 emoji fit and 256 do not', async () => {
    const emoji = (n: number) => '😀'.repeat(n);
    expect(await errorsOf({ ...server, customExtensions: { [emoji(255)]: emoji(255) } })).toEqual([]);
    expect(await errorsOf({ ...server, customExtensions: { [emoji(256)]: 'v', k: emoji(256) } })).toEqual([
      { field: 'customExtensions', message: 'keys must be 1 to 255 characters' },
      { field: 'customExtensions.k', message: 'values must be at most 255 characters' },
    ]);
  });
});

describe('a server certificate without CN (acme, names longer than 64 characters)', () => {
  const { commonName: _cn, ...withoutCn } = server;
  const long = `${'a'.repeat(60)}.long.example.com`;
  it('is refused as an admin API body, and taken as the acme request that has no CN', async () => {
    expect(await errorsOf(withoutCn)).toEqual([expect.objectContaining({ field: 'commonName' })]);
    const sans = { ...withoutCn, subjectAlternativeNames: [long] };
    expect(await errorsOf(sans, AcmeCertificateWithoutCnRequest)).toEqual([]);
  });

  it('still has no CN, and is for a server', async () => {
    expect(await errorsOf(server, AcmeCertificateWithoutCnRequest)).toEqual([
      { field: 'commonName', message: 'must be absent: this certificate has no CN' },
    ]);
    expect(await errorsOf({ ...withoutCn, usage: 'Client' }, AcmeCertificateWithoutCnRequest)).toEqual([
      expect.objectContaining({ field: 'usage' }),
    ]);
  });
});

describe("acme's request (O and C are the signing CA's, set by issuance)", () => {
  const { organization: _o, country: _c, ...withoutOrganization } = server;
  it('may leave out O and C, which an admin API body may not', async () => {
    expect(await errorsOf(withoutOrganization, AcmeCertificateRequest)).toEqual([]);
    expect([...new Set((await errorsOf(withoutOrganization)).map((e) => e.field))].sort()).toEqual([
      'country',
      'organization',
    ]);
  });

  it('still checks O and C when they are sent (by an acme older than issuance)', async () => {
    expect(await errorsOf({ ...server, country: 'USA' }, AcmeCertificateRequest)).toEqual([
      expect.objectContaining({ field: 'country' }),
    ]);
  });
});
