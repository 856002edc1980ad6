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
import { issuingCasOfFirstRoot } from './renewed-root-answers';
import { signedOcspResponse } from './signed-ocsp-response';

/** What answering for the issuing CA yields: an answer, or `tryLater` while no root signer exists. */
export type IssuingCaAnswer =
  | { der: Buffer; unknown?: boolean; cache?: { etag: string; thisUpdate: Date; nextUpdate: Date } }
  | 'tryLater';

/**
 * OCSP for the tenant's issuing CAs themselves (docs/api.md#ocsp): CertIDs whose issuer is the root.
 * An issuing CA's serial (the one made at initialization, or one added later,
 * docs/api.md#add-an-issuing-ca) is `good`, or `revoked` once an operator revoked it; any other
 * serial under the root is `unknown` (never cacheable, RFC 6960 2.4). Answers are signed by a
 * delegated signer the root certified (RFC 6960 4.2.2.2): kept apart from the leaves' signer, or,
 * for a root that signed leaves itself, that root's one signer. These requests
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
    /** The signers of the CAs made at initialization: for a root-only tenant, the root's. */
    private readonly leafSigners?: OcspSignerKeeper,
  ) {}

  /**
   * Every CertID names the root of a tenant that has an issuing CA. For a root that signed leaves
   * itself, only a request naming nothing but added issuing CAs' serials is this; one that also
   * names its leaves goes the leaves' way, which answers each added CA with `addedCaStatus`.
   */
  answersFor(ca: ServedCaCertificate, certIds: OcspCertId[]): boolean {
    // A corporate root answers for the CAs it certified itself (docs/api.md#external-root): such
    // CertIDs name an issuer this responder is not authoritative for, so they are `unauthorized`.
    if (ca.externalRoot) return false;
    if (!ca.separateRoot) {
      const added = issuingCasOfFirstRoot(ca);
      if (!this.leafSigners || added.length === 0) return false;
      if (!certIds.every((certId) => added.some((a) => a.serialNumberHex === certId.serialNumberHex)))
        return false;
    }
    return certIds.every((certId) => {
      if (!isOcspHashAlgorithm(certId.hashAlgorithm)) return false;
      const expected = this.rootHashesOf(ca, certId.hashAlgorithm);
      return (
        Buffer.from(expected.issuerNameHash).equals(Buffer.from(certId.issuerNameHash)) &&
        Buffer.from(expected.issuerKeyHash).equals(Buffer.from(certId.issuerKeyHash))
      );
    });
  }

  /**
   * For a root that signed leaves itself (one delegated signer, certified by that root, answers for
   * its leaves and for the issuing CAs added under it, RFC 6960 4.2.2.2): the status of an added
   * issuing CA whose serial a CertID under that root names, or undefined when the serial is none of
   * them (a leaf). So a request naming a leaf and an added CA gets each its own answer (RFC 6960 2.2).
   */
  async addedCaStatus(ca: ServedCaCertificate, serialNumberHex: string): Promise<OcspCertStatus | undefined> {
    if (ca.separateRoot || ca.externalRoot) return undefined;
    const added = issuingCasOfFirstRoot(ca).find((a) => a.serialNumberHex === serialNumberHex);
    if (!added) return undefined;
    return statusOfRevocation(await this.cas.addedRevocation(added.caId));
  }

  /** Whether any CertID names an issuing CA added under a root that signed leaves itself. */
  namesAddedCa(ca: ServedCaCertificate, certIds: OcspCertId[]): boolean {
    if (ca.separateRoot || ca.externalRoot || ca.added.length === 0) return false;
    const added = issuingCasOfFirstRoot(ca);
    return certIds.some((certId) => added.some((a) => a.serialNumberHex === certId.serialNumberHex));
  }

  async answer(ca: ServedCaCertificate, request: OcspRequestInfo): Promise<IssuingCaAnswer> {
    const signers = ca.separateRoot ? this.rootSigners : this.leafSigners;
    const signer = await signers?.signerFor(ca.tenantId);
    if (!signer) return 'tryLater';
    const issuingSerial = ca.separateRoot ? this.issuingSerialOf(ca) : undefined;
    const statuses: OcspCertStatus[] = [];
    for (const certId of request.certIds) {
      const added = issuingCasOfFirstRoot(ca).find((a) => a.serialNumberHex === certId.serialNumberHex);
      if (certId.serialNumberHex !== issuingSerial && !added) {
        statuses.push({ kind: 'unknown' });
        continue;
      }
      const revocation = added
        ? await this.cas.addedRevocation(added.caId)
        : await this.cas.issuingRevocation(ca.tenantId);
      statuses.push(statusOfRevocation(revocation));
    }
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

function statusOfRevocation(revocation: { revokedAt: Date; reasonCode: number } | undefined): OcspCertStatus {
  return revocation
    ? {
        kind: 'revoked',
        revocationTime: revocation.revokedAt,
        reasonCode: publishedReasonCode(revocation.reasonCode),
      }
    : { kind: 'good' };
}
