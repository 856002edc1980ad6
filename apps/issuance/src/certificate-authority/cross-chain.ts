import { CaRole } from '@ca/contracts';
import { parseCertificate, pemCertificatesToDer } from '@ca/pki';
import { CaStore } from './ca.store';

/** Roots renewed more often than this in one tenant's life are not walked further (a loop guard). */
const MAX_ROOT_GENERATIONS = 32;

/**
 * docs/api.md#chains: the cross certificates from `rootId` back towards the tenant's first root
 * (docs/api.md#renew-the-root), newest first, those not expired at `now` only: appended to a chain
 * under a renewed root so that a relying party that trusts only an older root still validates
 * (issuing CA → cross certificate → older root). Empty for a root never renewed.
 */
export async function crossCertificatesFrom(
  cas: CaStore,
  rootId: string | null,
  now = new Date(),
): Promise<Buffer[]> {
  const crosses: Buffer[] = [];
  let next = rootId;
  for (let generation = 0; next && generation < MAX_ROOT_GENERATIONS; generation++) {
    const link = await cas.crossLink(next);
    if (!link?.crossCertificateDer) break;
    const cross = link.crossCertificateDer;
    // An expired cross certificate helps no relying party; the older ones end no later (each is
    // cut to its issuer's validity), so the walk stops there.
    if (parseCertificate(new Uint8Array(cross)).notAfter.getTime() <= now.getTime()) break;
    crosses.push(cross);
    next = link.previousRootCaId;
  }
  return crosses;
}

/**
 * docs/api.md#chains: the CA certificates a relying party is sent with what `authority` signs,
 * from `authority` up to, not including, a root: empty for a root; the issuing CA, then either the
 * intermediates up to a corporate root (docs/api.md#external-root) or the cross certificates of
 * its root when that root was made by renewal (docs/api.md#renew-the-root).
 */
export async function chainOf(
  cas: CaStore,
  authority: {
    role: string;
    certificateDer: Buffer;
    issuerCaId: string | null;
    externalIntermediatesPem?: string | null;
  },
): Promise<Buffer[]> {
  if (authority.role === CaRole.Root) return [];
  if (authority.externalIntermediatesPem) {
    const intermediates = pemCertificatesToDer(authority.externalIntermediatesPem);
    return [authority.certificateDer, ...intermediates.map((der) => Buffer.from(der))];
  }
  return [authority.certificateDer, ...(await crossCertificatesFrom(cas, authority.issuerCaId))];
}
