import { createHash } from 'node:crypto';
import {
  OcspCertId,
  OcspCertStatus,
  OcspHashAlgorithm,
  OcspRequestInfo,
  isOcspHashAlgorithm,
  issuerHashes,
  parseCertificate,
  publishedReasonCode,
} from '@ca/pki';
import { ocspMetrics } from '@ca/observability';
import { CaCertificateStore, ServedCaCertificate } from '../ca-certificates/ca-certificate.store';
import { OcspSigner, OcspSignerKeeper } from '../signers/ocsp-signer.keeper';
import { signedOcspResponse } from './signed-ocsp-response';

/** What answering for the issuing CA yields: an answer, or `tryLater` while no root signer exists. */
export type IssuingCaAnswer =
  | { der: Buffer; unknown?: boolean; cache?: { etag: string; thisUpdate: Date; nextUpdate: Date } }
  | 'tryLater';

/**
 * OCSP for the tenant's issuing CA itself (docs/api.md#ocsp): CertIDs whose issuer is the root.
 * The issuing CA's serial is `good`, or `revoked` once an operator revoked it; any other serial
 * under the root is `unknown` (never cacheable, RFC 6960 2.4). Answers are signed by a delegated
 * signer the root certified (RFC 6960 4.2.2.2), kept apart from the leaves' signer. These requests
 * are rare (once per chain a relying party checks, then HTTP-cached), so the revocation is read
 * from the table on every answer and nothing is kept in memory but the root's issuer hashes.
 */
export class IssuingCaAnswers {
  private readonly rootHashes = new Map<string, { issuerNameHash: Uint8Array; issuerKeyHash: Uint8Array }>();
  private readonly issuingSerials = new Map<string, string>();

  constructor(
    private readonly cas: CaCertificateStore,
    private readonly rootSigners: OcspSignerKeeper,
    private readonly validitySeconds: number,
  ) {}

  /** Every CertID names the root of a tenant that has an issuing CA. */
  answersFor(ca: ServedCaCertificate, certIds: OcspCertId[]): boolean {
    if (!ca.issuing) return false;
    return certIds.every((certId) => {
      if (!isOcspHashAlgorithm(certId.hashAlgorithm)) return false;
      const expected = this.rootHashesOf(ca, certId.hashAlgorithm);
      return (
        Buffer.from(expected.issuerNameHash).equals(Buffer.from(certId.issuerNameHash)) &&
        Buffer.from(expected.issuerKeyHash).equals(Buffer.from(certId.issuerKeyHash))
      );
    });
  }

  async answer(ca: ServedCaCertificate, request: OcspRequestInfo): Promise<IssuingCaAnswer> {
    const signer = await this.rootSigners.signerFor(ca.tenantId);
    if (!signer) return 'tryLater';
    const issuingSerial = this.issuingSerialOf(ca);
    const revocation = await this.cas.issuingRevocation(ca.tenantId);
    const statuses = request.certIds.map((certId): OcspCertStatus => {
      if (certId.serialNumberHex !== issuingSerial) return { kind: 'unknown' };
      if (!revocation) return { kind: 'good' };
      return {
        kind: 'revoked',
        revocationTime: revocation.revokedAt,
        reasonCode: publishedReasonCode(revocation.reasonCode),
      };
    });
    const unknown = statuses.some((status) => status.kind === 'unknown');
    ocspMetrics.answer(statuses, undefined);
    return this.sign(request, statuses, signer, unknown);
  }

  private async sign(
    request: OcspRequestInfo,
    statuses: OcspCertStatus[],
    signer: OcspSigner,
    unknown: boolean,
  ): Promise<IssuingCaAnswer> {
    const { der, thisUpdate, nextUpdate } = await signedOcspResponse(
      request,
      statuses,
      signer,
      this.validitySeconds,
    );
    if (unknown) return { der, unknown: true };
    if (request.nonce) return { der };
    const etag = `"${createHash('sha256').update(der).digest('hex')}"`;
    return { der, cache: { etag, thisUpdate, nextUpdate } };
  }

  private rootHashesOf(ca: ServedCaCertificate, algorithm: OcspHashAlgorithm) {
    const key = `${ca.tenantId}:${algorithm}`;
    let hashes = this.rootHashes.get(key);
    if (!hashes) {
      hashes = issuerHashes(new Uint8Array(ca.root.der), algorithm);
      this.rootHashes.set(key, hashes);
    }
    return hashes;
  }

  private issuingSerialOf(ca: ServedCaCertificate): string {
    let serial = this.issuingSerials.get(ca.tenantId);
    if (!serial) {
      serial = parseCertificate(new Uint8Array(ca.der)).serialNumberHex;
      this.issuingSerials.set(ca.tenantId, serial);
    }
    return serial;
  }
}
