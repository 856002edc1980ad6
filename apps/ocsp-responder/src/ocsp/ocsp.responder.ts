import { createHash } from 'node:crypto';
import {
  OcspCertId,
  OcspCertStatus,
  OcspHashAlgorithm,
  OcspRequestInfo,
  buildOcspErrorResponse,
  buildOcspResponse,
  issuerHashes,
  parseOcspRequest,
  publishedReasonCode,
} from '@ca/pki';
import { ocspMetrics } from '@ca/observability';
import { CaCertificateStore } from '../ca-certificates/ca-certificate.store';
import {
  CertificateStatusProjection,
  CertificateStatusRow,
} from '../certificate-status/certificate-status.projection';
import { OcspSignerKeeper } from '../signers/ocsp-signer.keeper';
import { CachedOcspResponse, OcspResponseCache } from './ocsp-response.cache';

/** Validity of an answer (thisUpdate → nextUpdate); caches may keep it that long (RFC 5019 6.2). */
export const OCSP_VALIDITY_MS = 60 * 60_000;
/** A cached answer is reused until this long before its nextUpdate, so clients always get time to use it. */
const REUSE_MARGIN_MS = 15 * 60_000;
/**
 * How long `answerFromMemory` trusts the signer `answer` last saw. A renewed signer (7 days before
 * expiry) is picked up by the next full answer; until then answers of the previous, still valid one
 * are served.
 */
const SIGNER_REUSE_MS = 5_000;

export interface OcspAnswer {
  der: Buffer;
  /** Present on successful answers: what makes a GET cacheable (RFC 5019 6). */
  cache?: { etag: string; thisUpdate: Date; nextUpdate: Date };
}

/**
 * RFC 6960 responder for one tenant per request, answering only from its own projection:
 * `unauthorized` for a tenant without CA, `malformedRequest` for undecodable input, `tryLater`
 * while the tenant's delegated signer is being made; per serial good / revoked (time and RFC 5280
 * reason, never the free text) / unknown (never issued by this CA, or another issuer's CertID).
 */
export class OcspResponder {
  private readonly issuerHashCache = new Map<
    string,
    { issuerNameHash: Uint8Array; issuerKeyHash: Uint8Array }
  >();

  /** The tenant's signer as `answer` last saw it, which lets `answerFromMemory` pick cache keys. */
  private readonly recentSigners = new Map<string, { notAfter: Date; until: number }>();

  constructor(
    private readonly cas: CaCertificateStore,
    private readonly statuses: CertificateStatusProjection,
    private readonly signers: OcspSignerKeeper,
    private readonly cache = new OcspResponseCache(),
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
    if (request.nonce) return undefined;
    const ca = this.cas.cached(tenantId);
    const signer = ca && this.recentSigners.get(ca.tenantId);
    if (!ca || !signer || signer.until <= Date.now() || signer.notAfter.getTime() <= Date.now())
      return undefined;
    const found = this.statuses.remembered(
      ca.tenantId,
      request.certIds.map((c) => c.serialNumberHex),
    );
    if (!found) return undefined;
    const statuses = request.certIds.map((certId) => this.statusOf(ca.tenantId, ca.der, certId, found));
    const cached = this.cachedAnswer(this.cacheKey(ca.tenantId, request.certIds, statuses, signer.notAfter));
    if (cached) ocspMetrics.answer(statuses, true);
    return cached && { der: cached.der, cache: cached };
  }

  async answer(tenantId: string, requestDer: Uint8Array): Promise<OcspAnswer> {
    let request: OcspRequestInfo;
    try {
      request = parseOcspRequest(requestDer);
    } catch {
      ocspMetrics.answer('malformedRequest');
      return { der: Buffer.from(buildOcspErrorResponse('malformedRequest')) };
    }
    const ca = await this.cas.find(tenantId);
    if (!ca) {
      ocspMetrics.answer('unauthorized');
      return { der: Buffer.from(buildOcspErrorResponse('unauthorized')) };
    }
    const signer = await this.signers.signerFor(ca.tenantId);
    if (!signer) {
      this.recentSigners.delete(ca.tenantId);
      ocspMetrics.answer('tryLater');
      return { der: Buffer.from(buildOcspErrorResponse('tryLater')) };
    }
    this.recentSigners.set(ca.tenantId, {
      notAfter: signer.notAfter,
      until: Date.now() + SIGNER_REUSE_MS,
    });

    const found = await this.statuses.find(
      ca.tenantId,
      request.certIds.map((c) => c.serialNumberHex),
    );
    const statuses = request.certIds.map((certId) => this.statusOf(ca.tenantId, ca.der, certId, found));
    const cacheKey = request.nonce
      ? undefined
      : this.cacheKey(ca.tenantId, request.certIds, statuses, signer.notAfter);
    const cached = cacheKey ? this.cachedAnswer(cacheKey) : undefined;
    // Counted here, once per answer of this path: a hit, a miss, or not cacheable (nonce).
    ocspMetrics.answer(statuses, cacheKey ? cached !== undefined : undefined);
    if (cached) return { der: cached.der, cache: cached };

    const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
    const nextUpdate = new Date(Math.min(thisUpdate.getTime() + OCSP_VALIDITY_MS, signer.notAfter.getTime()));
    const der = Buffer.from(
      await buildOcspResponse({
        responses: request.certIds.map((certId, i) => ({
          certId,
          status: statuses[i],
          thisUpdate,
          nextUpdate,
        })),
        producedAt: thisUpdate,
        nonce: request.nonce,
        responderCertificateDer: signer.certificateDer,
        responderPrivateKey: signer.privateKey,
      }),
    );
    const entry = {
      der,
      etag: `"${createHash('sha256').update(der).digest('base64url')}"`,
      thisUpdate,
      nextUpdate,
      reuseUntil: nextUpdate.getTime() - REUSE_MARGIN_MS,
    };
    if (cacheKey) this.cache.set(cacheKey, entry);
    return { der, cache: entry };
  }

  /** The one place the answer cache is consulted (both paths). */
  private cachedAnswer(key: string): CachedOcspResponse | undefined {
    return this.cache.get(key);
  }

  private statusOf(
    tenantId: string,
    caDer: Buffer,
    certId: OcspCertId,
    found: Map<string, CertificateStatusRow>,
  ): OcspCertStatus {
    if (certId.hashAlgorithm !== 'sha1' && certId.hashAlgorithm !== 'sha256') return { kind: 'unknown' };
    const expected = this.issuerHashesOf(tenantId, caDer, certId.hashAlgorithm);
    const sameIssuer =
      Buffer.from(expected.issuerNameHash).equals(Buffer.from(certId.issuerNameHash)) &&
      Buffer.from(expected.issuerKeyHash).equals(Buffer.from(certId.issuerKeyHash));
    const row = sameIssuer ? found.get(certId.serialNumberHex) : undefined;
    if (!row) return { kind: 'unknown' };
    if (row.revokedAt) {
      const reasonCode = row.reasonCode === null ? undefined : publishedReasonCode(row.reasonCode);
      return { kind: 'revoked', revocationTime: row.revokedAt, reasonCode };
    }
    return { kind: 'good' };
  }

  private issuerHashesOf(tenantId: string, caDer: Buffer, algorithm: OcspHashAlgorithm) {
    const key = `${tenantId}:${algorithm}`;
    let hashes = this.issuerHashCache.get(key);
    if (!hashes) {
      hashes = issuerHashes(new Uint8Array(caDer), algorithm);
      this.issuerHashCache.set(key, hashes);
    }
    return hashes;
  }

  /**
   * The answer cache's key: tenant, signer, and each CertID's DER with its current status. A plain
   * string, not a digest: hashing it cost more than the Map lookup it keys (OCSP profile); the
   * CertID DER is self-delimiting, so the parts cannot run into each other.
   */
  private cacheKey(
    tenantId: string,
    certIds: OcspCertId[],
    statuses: OcspCertStatus[],
    signerNotAfter: Date,
  ): string {
    let key = `${tenantId}|${signerNotAfter.getTime()}`;
    certIds.forEach((certId, i) => {
      const status = statuses[i];
      key += `|${Buffer.from(certId.der.buffer, certId.der.byteOffset, certId.der.byteLength).toString('base64')}:${status.kind}`;
      if (status.kind === 'revoked') key += `:${status.revocationTime.getTime()}:${status.reasonCode ?? ''}`;
    });
    return key;
  }
}
