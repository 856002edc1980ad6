import { CaError, CaRole, CaSummary, ErrorCode, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { parseCertificate, pemToDer } from '@ca/pki';
import { AcmeProblem } from './acme-problem';

/**
 * The organizational unit of every ACME certificate: the name CAs traditionally give a certificate
 * whose only vetting was control of its domain names (RFC 8555 8), as ACME's is.
 */
export const ACME_ORGANIZATIONAL_UNIT = 'Domain Control Validated';

/** RFC 5280 Appendix A.1 ub-common-name. */
const UB_COMMON_NAME = 64;

export interface AcmeSubject {
  /** Absent when no identifier fits in a CN: the certificate is named by its SANs alone. */
  commonName?: string;
  organization: string;
  organizationalUnit: string;
  country: string;
}

/**
 * The subject of an ACME certificate (docs/api.md#acme-certificate-profile): CN the first
 * identifier that fits (64 characters, RFC 5280 ub-common-name), none when none fits (the
 * subjectAltName names them all), O and C those of the tenant's
 * signing CA (read from issuance), OU `Domain Control Validated`. Nothing in it is the
 * requester's word beyond the names it proved it controls.
 */
export async function acmeSubject(
  issuance: RpcClient<IssuanceApi>,
  command: { tenantId: string; principal: string },
  identifiers: string[],
): Promise<AcmeSubject> {
  const { cas } = await issuance.send(IssuancePattern.ListCas, command);
  const signer = signingCa(cas);
  if (!signer?.certificatePem) {
    // docs/api.md#external-root: the issuing CA waits for its certificate from the corporate root.
    if (cas.some((ca) => ca.state === 'pending')) {
      throw CaError.conflict(
        "this tenant's issuing CA waits for its certificate from the corporate root",
        ErrorCode.IssuingCaPending,
      );
    }
    throw new AcmeProblem('serverInternal', 'this tenant has no active CA to sign with', 503);
  }
  const { organization, country } = parseCertificate(pemToDer(signer.certificatePem)).subject;
  if (!organization || !country) {
    throw new AcmeProblem('serverInternal', "the tenant CA's subject names no organization or country", 500);
  }
  const commonName = identifiers.find((name) => name.length <= UB_COMMON_NAME);
  return {
    ...(commonName ? { commonName } : {}),
    organization,
    organizationalUnit: ACME_ORGANIZATIONAL_UNIT,
    country,
  };
}

/** The CA that signs leaves: the issuing CA of a two-tier tenant, else its root. */
function signingCa(cas: CaSummary[]): CaSummary | undefined {
  const active = cas.filter((ca) => ca.state === 'active');
  return active.find((ca) => ca.role === CaRole.Issuing) ?? active.find((ca) => ca.role === CaRole.Root);
}
