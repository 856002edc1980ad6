import { createHash } from 'node:crypto';
import {
  OcspCertId,
  OcspCertStatus,
  OcspHashAlgorithm,
  OcspRequestInfo,
  buildOcspErrorResponse,
  isOcspHashAlgorithm,
  issuerHashes,
  parseOcspRequest,
  publishedReasonCode,
} from '@ca/pki';
import { ocspMetrics } from '@ca/observability';
import { CaCertificateStore, ServedCaCertificate } from '../ca-certificates/ca-certificate.store';
import {
  CertificateStatusProjection,
  CertificateStatusRow,
} from '../certificate-status/certificate-status.projection';
import { OcspSigner, OcspSignerKeeper } from '../signers/ocsp-signer.keeper';
import { IssuingCaAnswers } from './issuing-ca-answers';
import { RenewedRootAnswers } from './renewed-root-answers';
import { signedOcspResponse } from './signed-ocsp-response';
import { CachedOcspResponse, OcspResponseCache } from './ocsp-response.cache';

export interface OcspResponderLimits {
  /** nextUpdate - thisUpdate of answers (CA/Browser Forum BR 4.9.10: 8 hours to 10 days). */
  validitySeconds: number;
  /** CertIDs one request may carry; more is `malformedRequest`. */
  maxCertIds: number;
  /** Answers being signed at once; a request that would need one more is shed (HTTP 503). */
  maxSigningsInFlight: number;
}

export const DEFAULT_OCSP_LIMITS: OcspResponderLimits = {
  validitySeconds: 8 * 3600,
  maxCertIds: 64,
  maxSigningsInFlight: 256,
};

/**
 * A cached answer is reused until this share of its validity before its nextUpdate (15 minutes of
 * an hour, 2 hours of 8), so clients always get time to use it (RFC 5019 2.2: pre-produced answers).
 */
const REUSE_MARGIN_SHARE = 1 / 4;
/**
 * How long `answerFromMemory` trusts the signer `answer` last saw. A renewed signer (7 days before
 * expiry) is picked up by the next full answer; until then answers of the previous, still valid one
 * are served.
 */
const SIGNER_REUSE_MS = 5_000;

/** The CA of the tenant a request's CertIDs all name, among those that sign or signed leaves. */
interface LeafCa {
  /** The tenant id for the CA made at initialization, else the added CA's id. */
  key: string;
  /** The CA itself: only serials it issued match these CertIDs (RFC 6960 4.1.1). */
  caId: string;
  signer(): Promise<OcspSigner | undefined>;
}

/** Thrown when too many answers are being signed already: the caller sheds the request (503). */
export class OcspOverloadedError extends Error {
  constructor() {
    super('Too many OCSP answers are being signed');
    this.name = 'OcspOverloadedError';
  }
}

export interface OcspAnswer {
  der: Buffer;
  /**
   * Present on answers HTTP caches may keep (RFC 5019 6.2): successful, no nonce, and every
   * serial known. The ETag is the hex SHA-256 of the body.
   */
  cache?: { etag: string; thisUpdate: Date; nextUpdate: Date };
  /**
   * A serial the responder has not seen (yet) was answered `unknown`: newer information may come
   * any moment, so no cache may keep or reuse it (RFC 6960 2.4).
   */
  unknown?: boolean;
}

/**
 * RFC 6960 responder for one tenant per request, answering only from its own projection:
 * `malformedRequest` for undecodable input or too many CertIDs, `unauthorized` for a tenant without
 * CA or a CertID naming another issuer (RFC 6960 2.3, RFC 5019 2.2.3), `tryLater` while the
 * tenant's delegated signer is being made; per serial good / revoked (time and RFC 5280 reason,
 * never the free text) / unknown (never seen by this responder). What it answers when: docs/ocsp.md.
 */
export class OcspResponder {
  private readonly issuerHashCache = new Map<
    string,
    { issuerNameHash: Uint8Array; issuerKeyHash: Uint8Array }
  >();

  /** The tenant's signer as `answer` last saw it, which lets `answerFromMemory` pick cache keys. */
  private readonly recentSigners = new Map<string, { notAfter: Date; until: number }>();

  private signingsInFlight = 0;

  constructor(
    private readonly cas: CaCertificateStore,
    private readonly statuses: CertificateStatusProjection,
    private readonly signers: OcspSignerKeeper,
    private readonly cache = new OcspResponseCache(),
    private readonly limits: OcspResponderLimits = DEFAULT_OCSP_LIMITS,
    /** CertIDs under the root of a tenant with an issuing CA: OCSP for the issuing CA itself. */
    private readonly issuingCa?: IssuingCaAnswers,
    /** Signers of issuing CAs added later, one per CA (docs/api.md#add-an-issuing-ca). */
    private readonly addedSigners?: OcspSignerKeeper,
    /** CertIDs under a root made by renewal: OCSP for its issuing CAs (docs/api.md#renew-the-root). */
    private readonly renewedRoots?: RenewedRootAnswers,
  ) {}

  /**
   * The answer when everything it needs is already in memory: the CA, the signer, every
   * serial's status and a signed answer for exactly this request and these statuses. No promise,
   * no query: the hot path of relying parties asking again. Undefined when any part is missing
   * (then `answer` does the full work, which includes every error answer).
   */
  answerFromMemory(tenantId: string, requestDer: Uint8Array): OcspAnswer | undefined {
    let request: OcspRequestInfo;
    try {
      request = parseOcspRequest(requestDer);
    } catch {
      return undefined;
    }
    if (request.nonce || request.certIds.length > this.limits.maxCertIds) return undefined;
    const ca = this.cas.cached(tenantId);
    const leafCa = ca && this.leafCaOf(ca, request.certIds);
    const signer = leafCa && this.recentSigners.get(leafCa.key);
    if (!ca || !leafCa || !signer || signer.until <= Date.now() || signer.notAfter.getTime() <= Date.now())
      return undefined;
    // An added issuing CA's status is read from its table on every answer (`answer`).
    if (this.issuingCa?.namesAddedCa(ca, request.certIds)) return undefined;
    const found = this.statuses.remembered(
      ca.tenantId,
      request.certIds.map((c) => c.serialNumberHex),
    );
    if (!found) return undefined;
    const statuses = request.certIds.map((certId) => statusOf(certId, found, leafCa.caId));
    const cached = this.cachedAnswer(
      this.cacheKey(leafCa.key, request.certIds, statuses, found, signer.notAfter),
    );
    if (cached) ocspMetrics.answer(statuses, true);
    return cached && { der: cached.der, cache: cached };
  }

  async answer(tenantId: string, requestDer: Uint8Array): Promise<OcspAnswer> {
    let request: OcspRequestInfo;
    try {
      request = parseOcspRequest(requestDer);
    } catch {
      return errorAnswer('malformedRequest');
    }
    if (request.certIds.length > this.limits.maxCertIds) return errorAnswer('malformedRequest');
    const ca = await this.cas.find(tenantId);
    // RFC 6960 2.3, RFC 5019 2.2.3: this responder is authoritative for the tenant's CAs only (the
    // one that signs leaves, and the root for the issuing CA); one CertID naming another issuer (or
    // a hash it cannot match), or a request mixing the two, makes the whole request unauthorized.
    if (!ca) return errorAnswer('unauthorized');
    // CertIDs under the root naming an issuing CA: OCSP for that CA itself.
    if (this.issuingCa?.answersFor(ca, request.certIds)) {
      const answer = await this.issuingCa.answer(ca, request);
      return answer === 'tryLater' ? errorAnswer('tryLater') : answer;
    }
    const renewedRoot = this.renewedRoots?.rootFor(ca, request.certIds);
    if (renewedRoot) {
      const answer = await this.renewedRoots!.answer(ca, renewedRoot, request);
      return answer === 'tryLater' ? errorAnswer('tryLater') : answer;
    }
    const leafCa = this.leafCaOf(ca, request.certIds);
    if (!leafCa) return errorAnswer('unauthorized');
    const signer = await leafCa.signer();
    if (!signer) {
      this.recentSigners.delete(leafCa.key);
      return errorAnswer('tryLater');
    }
    this.recentSigners.set(leafCa.key, {
      notAfter: signer.notAfter,
      until: Date.now() + SIGNER_REUSE_MS,
    });

    const found = await this.statuses.find(
      ca.tenantId,
      request.certIds.map((c) => c.serialNumberHex),
    );
    const statuses = request.certIds.map((certId) => statusOf(certId, found, leafCa.caId));
    // A root that signed leaves itself also certified the issuing CAs added under it: its signer
    // answers for both in one response, each CertID with its own status (RFC 6960 2.2).
    if (leafCa.key === ca.tenantId && this.issuingCa?.namesAddedCa(ca, request.certIds)) {
      for (const [i, certId] of request.certIds.entries()) {
        const added = await this.issuingCa.addedCaStatus(ca, certId.serialNumberHex);
        if (added) statuses[i] = added;
      }
    }
    const unknown = statuses.some((status) => status.kind === 'unknown');
    // Only answers every cache may keep are cached here too: no nonce (per request), no unknown.
    const cacheKey =
      request.nonce || unknown
        ? undefined
        : this.cacheKey(leafCa.key, request.certIds, statuses, found, signer.notAfter);
    const cached = cacheKey ? this.cachedAnswer(cacheKey) : undefined;
    // Counted here, once per answer of this path: a hit, a miss, or not cacheable.
    ocspMetrics.answer(statuses, cacheKey ? cached !== undefined : undefined);
    if (cached) return { der: cached.der, cache: cached };

    if (this.signingsInFlight >= this.limits.maxSigningsInFlight) throw new OcspOverloadedError();
    const validityMs = this.limits.validitySeconds * 1000;
    this.signingsInFlight++;
    let signed: Awaited<ReturnType<typeof signedOcspResponse>>;
    try {
      signed = await signedOcspResponse(request, statuses, signer, this.limits.validitySeconds);
    } finally {
      this.signingsInFlight--;
    }
    const { der, thisUpdate, nextUpdate } = signed;
    if (unknown) return { der, unknown: true };
    if (request.nonce) return { der };
    const entry = {
      der,
      etag: `"${createHash('sha256').update(der).digest('hex')}"`,
      thisUpdate,
      nextUpdate,
      reuseUntil: nextUpdate.getTime() - validityMs * REUSE_MARGIN_SHARE,
    };
    if (cacheKey) this.cache.set(cacheKey, entry);
    return { der, cache: entry };
  }

  /** The one place the answer cache is consulted (both paths). */
  private cachedAnswer(key: string): CachedOcspResponse | undefined {
    return this.cache.get(key);
  }

  /**
   * The CA every CertID names, among the tenant's CAs that sign or signed leaves: the one made at
   * initialization, or one added later (its leaves keep their answers after a rollover).
   */
  private leafCaOf(ca: ServedCaCertificate, certIds: OcspCertId[]): LeafCa | undefined {
    if (this.allOurs(ca.tenantId, ca.der, certIds)) {
      return { key: ca.tenantId, caId: ca.caId, signer: () => this.signers.signerFor(ca.tenantId) };
    }
    const signers = this.addedSigners;
    if (!signers) return undefined;
    for (const added of ca.added) {
      if (this.allOurs(added.caId, added.certificate.der, certIds)) {
        return { key: added.caId, caId: added.caId, signer: () => signers.signerFor(added.caId) };
      }
    }
    return undefined;
  }

  /** Every CertID names this CA, with a hash algorithm this responder matches. */
  private allOurs(caKey: string, caDer: Buffer, certIds: OcspCertId[]): boolean {
    return certIds.every((certId) => {
      if (!isOcspHashAlgorithm(certId.hashAlgorithm)) return false;
      const expected = this.issuerHashesOf(caKey, caDer, certId.hashAlgorithm);
      return (
        Buffer.from(expected.issuerNameHash).equals(Buffer.from(certId.issuerNameHash)) &&
        Buffer.from(expected.issuerKeyHash).equals(Buffer.from(certId.issuerKeyHash))
      );
    });
  }

  private issuerHashesOf(caKey: string, caDer: Buffer, algorithm: OcspHashAlgorithm) {
    const key = `${caKey}:${algorithm}`;
    let hashes = this.issuerHashCache.get(key);
    if (!hashes) {
      hashes = issuerHashes(new Uint8Array(caDer), algorithm);
      this.issuerHashCache.set(key, hashes);
    }
    return hashes;
  }

  /**
   * The answer cache's key: tenant, signer, and each CertID's DER with its current status and when
   * that status last changed. A plain
   * string, not a digest: hashing it cost more than the Map lookup it keys (OCSP profile); the
   * CertID DER is self-delimiting, so the parts cannot run into each other.
   */
  private cacheKey(
    caKey: string,
    certIds: OcspCertId[],
    statuses: OcspCertStatus[],
    rows: ReadonlyMap<string, CertificateStatusRow>,
    signerNotAfter: Date,
  ): string {
    let key = `${caKey}|${signerNotAfter.getTime()}`;
    certIds.forEach((certId, i) => {
      const status = statuses[i];
      key += `|${Buffer.from(certId.der.buffer, certId.der.byteOffset, certId.der.byteLength).toString('base64')}:${status.kind}`;
      if (status.kind === 'revoked') key += `:${status.revocationTime.getTime()}:${status.reasonCode ?? ''}`;
      // When the status last changed: `good` after a released hold is not the `good` signed before
      // the hold, which a relying party that saw the hold must not be served again.
      const changedAt = rows.get(certId.serialNumberHex)?.changedAt;
      if (changedAt) key += `@${changedAt.getTime()}`;
    });
    return key;
  }
}

/**
 * The status of one CertID already known to name `caId`, a CA of the tenant. A serial that another
 * CA of the tenant issued is not this CertID's certificate (RFC 6960 4.1.1: issuer and serial).
 */
function statusOf(
  certId: OcspCertId,
  found: Map<string, CertificateStatusRow>,
  caId: string,
): OcspCertStatus {
  const row = found.get(certId.serialNumberHex);
  if (!row || row.caId !== caId) return { kind: 'unknown' };
  if (row.revokedAt) {
    const reasonCode = row.reasonCode === null ? undefined : publishedReasonCode(row.reasonCode);
    return { kind: 'revoked', revocationTime: row.revokedAt, reasonCode };
  }
  return { kind: 'good' };
}

/** An unsigned error answer (RFC 6960 2.3), counted. */
function errorAnswer(status: 'malformedRequest' | 'unauthorized' | 'tryLater'): OcspAnswer {
  ocspMetrics.answer(status);
  return { der: Buffer.from(buildOcspErrorResponse(status)) };
}
