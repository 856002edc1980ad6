import { createHash } from 'node:crypto';
import {
  OcspCertId,
  OcspCertStatus,
  OcspHashAlgorithm,
  OcspRequestInfo,
  isOcspHashAlgorithm,
  issuerHashes,
  publishedReasonCode,
} from '@ca/pki';
import { ocspMetrics } from '@ca/observability';
import {
  AddedCa,
  CaCertificateStore,
  RenewedRoot,
  ServedCaCertificate,
} from '../ca-certificates/ca-certificate.store';
import { OcspSignerKeeper } from '../signers/ocsp-signer.keeper';
import type { IssuingCaAnswer } from './issuing-ca-answers';
import { signedOcspResponse } from './signed-ocsp-response';

/**
 * The issuing CAs signed by the tenant's first root: those a CertID naming that root may ask
 * about. One added under a renewed root is that root's (RFC 6960 4.1.1: issuer and serial).
 */
export function issuingCasOfFirstRoot(ca: ServedCaCertificate): AddedCa[] {
  return ca.added.filter(
    (added) => !added.issuerCaId || !ca.renewedRoots.some((root) => root.caId === added.issuerCaId),
  );
}

/**
 * OCSP for the issuing CAs under a root made by renewal (docs/api.md#renew-the-root): CertIDs
 * whose issuer is that root (name and key hash; it shares its name with the root it replaced,
 * not its key). An issuing CA it signed is `good`, or `revoked` once an operator revoked it; any
 * other serial `unknown` (never cacheable, RFC 6960 2.4). Signed by the delegated signer that root
 * certified (RFC 6960 4.2.2.2), kept like an added issuing CA's; the revocation is read on every
 * answer, as for the first root's issuing CAs.
 */
export class RenewedRootAnswers {
  private readonly hashes = new Map<string, { issuerNameHash: Uint8Array; issuerKeyHash: Uint8Array }>();

  constructor(
    private readonly cas: CaCertificateStore,
    /** The signers of added CAs, which keep one per renewed root too. */
    private readonly signers: OcspSignerKeeper,
    private readonly validitySeconds: number,
  ) {}

  /** The renewed root every CertID names, if there is one. */
  rootFor(ca: ServedCaCertificate, certIds: OcspCertId[]): RenewedRoot | undefined {
    return ca.renewedRoots.find((root) =>
      certIds.every((certId) => {
        if (!isOcspHashAlgorithm(certId.hashAlgorithm)) return false;
        const expected = this.hashesOf(root, certId.hashAlgorithm);
        return (
          Buffer.from(expected.issuerNameHash).equals(Buffer.from(certId.issuerNameHash)) &&
          Buffer.from(expected.issuerKeyHash).equals(Buffer.from(certId.issuerKeyHash))
        );
      }),
    );
  }

  async answer(
    ca: ServedCaCertificate,
    root: RenewedRoot,
    request: OcspRequestInfo,
  ): Promise<IssuingCaAnswer> {
    const signer = await this.signers.signerFor(root.caId);
    if (!signer) return 'tryLater';
    const statuses: OcspCertStatus[] = [];
    for (const certId of request.certIds) {
      const issuing = ca.added.find(
        (added) => added.issuerCaId === root.caId && added.serialNumberHex === certId.serialNumberHex,
      );
      const revocation = issuing && (await this.cas.addedRevocation(issuing.caId));
      statuses.push(
        !issuing
          ? { kind: 'unknown' }
          : revocation
            ? {
                kind: 'revoked',
                revocationTime: revocation.revokedAt,
                reasonCode: publishedReasonCode(revocation.reasonCode),
              }
            : { kind: 'good' },
      );
    }
    ocspMetrics.answer(statuses, undefined);
    const { der, thisUpdate, nextUpdate } = await signedOcspResponse(
      request,
      statuses,
      signer,
      this.validitySeconds,
    );
    if (statuses.some((status) => status.kind === 'unknown')) return { der, unknown: true };
    if (request.nonce) return { der };
    const etag = `"${createHash('sha256').update(der).digest('hex')}"`;
    return { der, cache: { etag, thisUpdate, nextUpdate } };
  }

  private hashesOf(root: RenewedRoot, algorithm: OcspHashAlgorithm) {
    const key = `${root.caId}:${algorithm}`;
    let hashes = this.hashes.get(key);
    if (!hashes) {
      hashes = issuerHashes(new Uint8Array(root.certificate.der), algorithm);
      this.hashes.set(key, hashes);
    }
    return hashes;
  }
}
