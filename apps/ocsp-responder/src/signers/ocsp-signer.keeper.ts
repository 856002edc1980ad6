import type { webcrypto } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { X509Certificate, createHash, randomUUID } from 'node:crypto';
import { CaError, ErrorCode, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { CUSTODY_ALGORITHM, CustodiedKey, KeyCustody } from '@ca/custody';
import { RpcClient } from '@ca/messaging';
import { buildOcspSignerCertificationRequest, leafKeyAlgorithmOfSpki } from '@ca/pki';
import { ocspMetrics } from '@ca/observability';
import { OcspSignerStore, SignerLine, SignerRow } from './ocsp-signer.store';
import { RequestedSignerStore } from './requested-signer.store';

export interface OcspSigner {
  certificateDer: Uint8Array;
  privateKey: webcrypto.CryptoKey;
  notAfter: Date;
}

/**
 * Issuance's answers that say it will never certify this signer (no such CA, or a CA whose key is
 * not held or that may not sign one): asking again every sweep would only make a key each time.
 */
const REFUSALS: readonly string[] = [ErrorCode.Forbidden, ErrorCode.Conflict, ErrorCode.NotFound];

/** A new signer is obtained this long before the current one expires. */
export const SIGNER_RENEW_BEFORE_MS = 7 * 24 * 60 * 60_000;

/**
 * Keeps one delegated OCSP signer per tenant (RFC 6960 4.2.2.2): the key is generated here,
 * in the responder's own custody, and only its public half goes to issuance, which returns the
 * certificate. Signers are made and renewed in the background, so an answer never waits for
 * issuance; while a tenant has none yet, the responder answers `tryLater`.
 */
export class OcspSignerKeeper {
  private readonly logger = new Logger('OcspSignerKeeper');
  private readonly opened = new Map<string, Promise<OcspSigner | undefined>>();
  private readonly ensuring = new Map<string, Promise<void>>();
  /** Tenants whose stored signer key custody could not open: replaced regardless of its expiry. */
  private readonly unusable = new Set<string>();
  /**
   * Keys issuance refused for good (REFUSALS): the sweep skips them; an event about the CA asks
   * again (`ensure`), as a new root or issuing CA may change the answer.
   */
  private readonly refused = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly signers: OcspSignerStore,
    private readonly requested: RequestedSignerStore,
    private readonly custody: KeyCustody,
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly intervalMs = 30_000,
  ) {}

  private get line(): SignerLine {
    return this.signers.line;
  }

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    void this.sweep();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([...this.ensuring.values()]);
  }

  /** The tenant's current signer, or undefined while none is usable (renewal is then under way). */
  async signerFor(tenantId: string): Promise<OcspSigner | undefined> {
    let opening = this.opened.get(tenantId);
    if (!opening) {
      opening = this.open(tenantId);
      this.opened.set(tenantId, opening);
    }
    const signer = await opening;
    if (!signer || signer.notAfter.getTime() - Date.now() < SIGNER_RENEW_BEFORE_MS) {
      // Reopen from the table next time: this or another replica may have stored a newer signer.
      this.opened.delete(tenantId);
      void this.ensure(tenantId);
    }
    return signer && signer.notAfter.getTime() > Date.now() ? signer : undefined;
  }

  /** Makes sure the tenant has a signer that is not near expiry; one attempt at a time per tenant. */
  ensure(tenantId: string): Promise<void> {
    const current = this.ensuring.get(tenantId);
    if (current) return current;
    this.refused.delete(tenantId);
    const attempt = this.renewIfNeeded(tenantId)
      .catch((err: unknown) => {
        if (err instanceof CaError && REFUSALS.includes(err.code)) {
          this.refused.add(tenantId);
          this.logger.warn(
            { err, tenantId, issuer: this.line.issuer },
            'issuance will not certify this OCSP signer',
          );
          return;
        }
        this.logger.warn({ err, tenantId }, 'could not obtain an OCSP signer yet; will retry');
      })
      .finally(() => this.ensuring.delete(tenantId));
    this.ensuring.set(tenantId, attempt);
    return attempt;
  }

  /** One sweep over the due keys but those refused; never rejects (ensure() logs its own failures). */
  async sweep(): Promise<void> {
    let due: string[];
    try {
      due = await this.signers.due(new Date(Date.now() + SIGNER_RENEW_BEFORE_MS));
    } catch (err) {
      // The next sweep retries; meanwhile a tenant without a signer is answered `tryLater`.
      ocspMetrics.signerSweepFailuresTotal.inc();
      this.logger.warn({ err }, 'could not list tenants whose OCSP signer is due; the next sweep retries');
      return;
    }
    for (const key of due) if (!this.refused.has(key)) await this.ensure(key);
    await this.requested.forgetOld().catch(() => undefined);
  }

  private async renewIfNeeded(tenantId: string): Promise<void> {
    const existing = await this.row(tenantId);
    const current = existing && existing.not_after.getTime() - Date.now() >= SIGNER_RENEW_BEFORE_MS;
    if (current && !this.unusable.has(tenantId)) return;
    const subject = await this.signers.subject(tenantId);
    if (!subject) return;
    const { tenant_id: owner, ca_id: caId, issuer_der: issuerDer } = subject;
    const keyId = randomUUID();
    // The signer's key is of the certifying CA's type and size (docs/api.md#key-algorithms), so a
    // relying party that accepts the CA's algorithm accepts the answers; custody's default otherwise.
    const issuerKey = issuerDer
      ? leafKeyAlgorithmOfSpki(
          new X509Certificate(issuerDer).publicKey.export({ type: 'spki', format: 'der' }),
        )
      : undefined;
    const algorithm = issuerKey ? CUSTODY_ALGORITHM[issuerKey] : undefined;
    // Custody binds the key to the keeper's key (tenant or CA id), with which it is opened again.
    const { key } = await this.custody.generateSigningKey({ tenantId, keyId }, algorithm);
    // Signed with the new key (proof of possession), and recorded as asked for before asking, so
    // an announced signer of any other key is one no replica asked for (SignerAnnouncements).
    const opened = await this.custody.openSigningKey({ tenantId, keyId }, key);
    const request = await buildOcspSignerCertificationRequest('OCSP signer', opened);
    await this.requested.record(createHash('sha256').update(key.publicKeySpki).digest('hex'), owner);
    const issued = await this.issuance.send(IssuancePattern.IssueOcspSigner, {
      tenantId: owner,
      certificationRequest: Buffer.from(request).toString('base64'),
      ...(this.line.issuer ? { issuer: this.line.issuer } : {}),
      ...(caId ? { caId } : {}),
    });
    await this.signers.save(tenantId, {
      keyId,
      keyAlgorithm: key.algorithm,
      publicKeySpki: Buffer.from(key.publicKeySpki),
      wrappedKey: Buffer.from(key.wrapped),
      certificateDer: Buffer.from(issued.certificateDer, 'base64'),
      notAfter: issued.notAfter,
    });
    this.opened.delete(tenantId);
    this.unusable.delete(tenantId);
    this.logger.log({ tenantId, issuer: this.line.issuer, notAfter: issued.notAfter }, 'OCSP signer ready');
  }

  private async open(tenantId: string): Promise<OcspSigner | undefined> {
    const row = await this.row(tenantId);
    if (!row) return undefined;
    const key: CustodiedKey = {
      keyId: row.key_id,
      algorithm: row.key_algorithm as CustodiedKey['algorithm'],
      publicKeySpki: new Uint8Array(row.public_key_spki),
      wrapped: new Uint8Array(row.wrapped_key),
    };
    try {
      const { privateKey } = await this.custody.openSigningKey({ tenantId, keyId: row.key_id }, key);
      return { certificateDer: new Uint8Array(row.certificate_der), privateKey, notAfter: row.not_after };
    } catch (err) {
      // E.g. the responder's KEK was replaced: this key is lost, so make a new signer.
      this.logger.error({ err, tenantId }, 'stored OCSP signer key cannot be opened; replacing it');
      this.unusable.add(tenantId);
      return undefined;
    }
  }

  private row(tenantId: string): Promise<SignerRow | undefined> {
    return this.signers.find(tenantId);
  }
}
