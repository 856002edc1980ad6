import { buildCaCertificate, generateEcKeyPair, parseCertificate, readNameConstraints } from '@ca/pki';
import type { TenantPolicy } from '../policy/issuance-policies';
import { carriesPolicy, issuingCaExtendedKeyUsages, issuingCaProfile } from './issuing-ca-profile';

const DAY = 86_400_000;
const TENANT = '6f1c2f4e-8a0b-4a51-9a77-0c1d2e3f4a5b';

/** A self-signed CA certificate with the issuing CA profile of `policy`, as the rollover check reads it. */
async function issuingCaUnder(policy: TenantPolicy | null): Promise<Uint8Array> {
  const notBefore = new Date(Date.now() - 60_000);
  const profile = issuingCaProfile('https://pki.example.test', TENANT, policy, {
    subject: { commonName: 'Test Issuing CA', organization: 'Acme', country: 'US' },
    notBefore,
    notAfter: new Date(notBefore.getTime() + 30 * DAY),
    crlDistributionPointUrl: 'https://pki.example.test/root.crl',
  });
  return buildCaCertificate(profile, await generateEcKeyPair(false));
}

const clientOnly: TenantPolicy = { allowedDnsSuffixes: ['example.com'], allowedUsages: ['Client'] };
const both: TenantPolicy = { allowedDnsSuffixes: ['example.com'], allowedUsages: ['Client', 'Server'] };

describe('issuing CA EKU from the policy', () => {
  it('lists the purposes of the allowed usages; both without a policy', () => {
    expect(issuingCaExtendedKeyUsages(null)).toEqual(['serverAuth', 'clientAuth']);
    expect(issuingCaExtendedKeyUsages(both)).toEqual(['serverAuth', 'clientAuth']);
    expect(issuingCaExtendedKeyUsages(clientOnly)).toEqual(['clientAuth']);
    expect(issuingCaExtendedKeyUsages({ ...both, allowedUsages: ['Server'] })).toEqual(['serverAuth']);
  });

  it('writes them into the certificate next to the name constraints', async () => {
    const der = await issuingCaUnder(clientOnly);
    expect(parseCertificate(der).extendedKeyUsages).toEqual(['clientAuth']);
    expect(readNameConstraints(der)?.permittedDnsNames).toEqual(['example.com']);
  });
});

describe('carriesPolicy', () => {
  it('holds for the policy a CA was made under', async () => {
    expect(carriesPolicy(await issuingCaUnder(null), null)).toBe(true);
    expect(carriesPolicy(await issuingCaUnder(clientOnly), clientOnly)).toBe(true);
    expect(carriesPolicy(await issuingCaUnder(both), both)).toBe(true);
  });

  it('fails when only the usages differ, so a usage change rolls the CA over', async () => {
    const clientCa = await issuingCaUnder(clientOnly);
    expect(carriesPolicy(clientCa, both)).toBe(false);
    expect(carriesPolicy(await issuingCaUnder(both), clientOnly)).toBe(false);
    // Removing the policy: the new CA needs both purposes and no name constraints.
    expect(carriesPolicy(clientCa, null)).toBe(false);
    expect(
      carriesPolicy(await issuingCaUnder({ allowedDnsSuffixes: [], allowedUsages: ['Client'] }), null),
    ).toBe(false);
  });

  it('fails when only the suffixes differ', async () => {
    const ca = await issuingCaUnder(clientOnly);
    expect(carriesPolicy(ca, { ...clientOnly, allowedDnsSuffixes: ['example.org'] })).toBe(false);
    expect(carriesPolicy(await issuingCaUnder(null), both)).toBe(false);
  });
});
