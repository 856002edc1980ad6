import { CaSummary, IssuanceApi } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { buildCaCertificate, derToPem, generateEcKeyPair, randomSerialNumber } from '@ca/pki';
import { AcmeProblem } from './acme-problem';
import { ACME_ORGANIZATIONAL_UNIT, acmeSubject } from './certificate-subject';

describe('the subject of an ACME certificate', () => {
  const ca = async (
    role: CaSummary['role'],
    organization: string,
    country: string,
    state: CaSummary['state'] = 'active',
  ): Promise<CaSummary> => {
    const keys = await generateEcKeyPair(false);
    const der = await buildCaCertificate(
      {
        subject: { commonName: `${organization} ${role}`, organization, country },
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: new Date('2036-01-01T00:00:00Z'),
        serialNumber: randomSerialNumber(),
      },
      keys,
    );
    return { role, state, certificatePem: derToPem(der, 'CERTIFICATE') } as CaSummary;
  };
  const issuanceWith = (cas: CaSummary[]) =>
    ({ send: async () => ({ cas }) }) as unknown as RpcClient<IssuanceApi>;
  const command = { tenantId: 'tenant-a', principal: 'acme:account' };

  it("names the first identifier, and O and C of the tenant's issuing CA rather than its root", async () => {
    const cas = [await ca('root', 'Example Root Org', 'DE'), await ca('issuing', 'Example Holdings', 'FR')];
    await expect(
      acmeSubject(issuanceWith(cas), command, ['a.example.test', 'b.example.test']),
    ).resolves.toEqual({
      commonName: 'a.example.test',
      organization: 'Example Holdings',
      organizationalUnit: ACME_ORGANIZATIONAL_UNIT,
      country: 'FR',
    });
  });

  it('takes the root of a one-tier tenant, skips a name too long for CN, ignores expired CAs', async () => {
    const cas = [
      await ca('issuing', 'Expired Org', 'FR', 'expired'),
      await ca('root', 'Example Root Org', 'DE'),
    ];
    const long = `${'a'.repeat(60)}.example.test`;
    await expect(acmeSubject(issuanceWith(cas), command, [long, 'b.example.test'])).resolves.toMatchObject({
      commonName: 'b.example.test',
      organization: 'Example Root Org',
      country: 'DE',
    });
  });

  it('has no CN when no identifier fits in one (RFC 5280 ub-common-name, 64)', async () => {
    const cas = [await ca('root', 'Example Root Org', 'DE')];
    const subject = await acmeSubject(issuanceWith(cas), command, [`${'a'.repeat(60)}.example.test`]);
    expect(subject).toEqual({
      organization: 'Example Root Org',
      organizationalUnit: ACME_ORGANIZATIONAL_UNIT,
      country: 'DE',
    });
  });

  it('refuses to guess when the tenant has no active CA', async () => {
    await expect(acmeSubject(issuanceWith([]), command, ['a.example.test'])).rejects.toBeInstanceOf(
      AcmeProblem,
    );
  });
});
