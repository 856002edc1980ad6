import { CaError, ErrorCode, IssuanceApi, IssuancePattern, RenewalInfo } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { parseAriCertId } from '@ca/pki';
import { AcmeProblem, malformed, unauthorized } from './acme-problem';
import { AcmeReply, json } from './acme-reply';
import { OrderStore } from '../stores/order.store';

/** How long a client waits before asking again (RFC 9773 4.3); a replace-now drill is seen within it. */
export const RENEWAL_INFO_RETRY_AFTER_SECONDS = 6 * 3600;

/** The certificate a certID names, from issuance (the owner of certificates); undefined if none. */
async function lookUp(
  issuance: RpcClient<IssuanceApi>,
  tenantId: string,
  certId: string,
): Promise<RenewalInfo | undefined> {
  const parts = parseAriCertId(certId);
  if (!parts) throw malformed('the certID must be base64url(AKI keyIdentifier) "." base64url(serial)');
  try {
    return await issuance.send(IssuancePattern.GetRenewalInfo, { tenantId, ...parts });
  } catch (error) {
    if (error instanceof CaError && error.code === ErrorCode.NotFound) return undefined;
    throw error;
  }
}

/** RFC 9773 4.2: GET {renewalInfo}/{certID}, the suggested window of any certificate of the tenant. */
export async function renewalInfoReply(
  issuance: RpcClient<IssuanceApi>,
  tenantId: string,
  certId: string,
): Promise<AcmeReply> {
  const info = await lookUp(issuance, tenantId, certId);
  if (!info) throw new AcmeProblem('malformed', 'no certificate of this tenant has this certID', 404);
  return json(
    200,
    { suggestedWindow: info.suggestedWindow },
    { headers: { 'retry-after': String(RENEWAL_INFO_RETRY_AFTER_SECONDS) } },
  );
}

/**
 * RFC 9773 5: the certificate a new order's `replaces` names, if this account may replace it: it
 * ordered it, or holds valid authorizations for all its names (as for revokeCert, RFC 8555 7.6),
 * or, for a certificate of the admin API (no account's), the order names all of them (so they
 * are proved before it is finalized). It must share a name with the order and have no successor.
 */
export async function replacedCertificate(
  deps: { issuance: RpcClient<IssuanceApi>; orders: OrderStore },
  tenantId: string,
  accountId: string,
  replaces: unknown,
  identifiers: string[],
): Promise<string> {
  if (typeof replaces !== 'string') throw malformed('replaces must be a certID (RFC 9773 4.1)');
  const info = await lookUp(deps.issuance, tenantId, replaces);
  if (!info) throw malformed('replaces names no certificate of this tenant');
  const names = info.dnsNames.map((n) => n.toLowerCase());
  if (!names.some((name) => identifiers.includes(name))) {
    throw malformed('the order shares no identifier with the certificate it replaces');
  }
  const ownedByAccount = info.issuedBy?.startsWith('acme:') === true;
  if (info.issuedBy !== `acme:${accountId}`) {
    const held = await deps.orders.authorizedIdentifiers(tenantId, accountId, names);
    const covered = ownedByAccount ? held : [...new Set([...held, ...identifiers])];
    if (!names.every((name) => covered.includes(name))) {
      throw unauthorized(
        'this account neither ordered the certificate it replaces nor holds valid authorizations for all its names',
      );
    }
  }
  if (info.successorId) {
    throw new AcmeProblem('alreadyReplaced', 'this certificate has been replaced already', 409);
  }
  return info.certificateId;
}
