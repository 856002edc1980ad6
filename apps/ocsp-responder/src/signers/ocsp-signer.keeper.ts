import type { webcrypto } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { X509Certificate, createHash, randomUUID } from 'node:crypto';
import { CaError, CrlIssuer, ErrorCode, IssuanceApi, IssuancePattern, ROOT_CRL_ISSUER } from '@ca/contracts';
import { CUSTODY_ALGORITHM, CustodiedKey, KeyCustody } from '@ca/custody';
import { RpcClient } from '@ca/messaging';
import { buildOcspSignerCertificationRequest, leafKeyAlgorithmOfSpki } from '@ca/pki';
import { ocspMetrics } from '@ca/observability';
import { DataSource } from 'typeorm';

export interface OcspSigner {
  certificateDer: Uint8Array;
  privateKey: webcrypto.CryptoKey;
  notAfter: Date;
}

interface SignerRow {
  key_id: string;
  key_algorithm: string;
  public_key_spki: Buffer;
  wrapped_key: Buffer;
  certificate_der: Buffer;
  not_after: Date;
}

/**
 * Which signers a keeper keeps: those certified by the tenant's CA made at initialization that
 * signs leaves (answers for its leaves), by the root (answers for the issuing CAs, only for tenants
 * whose root signs no leaves), or by each issuing CA added later (one per CA, for its leaves;
 * docs/api.md#add-an-issuing-ca). Table and column names and queries are these constants, never input.
 */
export interface SignerLine {
  table: 'ocsp.signers' | 'ocsp.root_signers' | 'ocsp.ca_signers';
  /** Whose signers these are: one per tenant, or one per CA. */
  key: 'tenant_id' | 'ca_id';
  issuer?: CrlIssuer;
  /**
   * By key: the tenant, the CA issuance is asked to certify with (none: `issuer`) and that CA's
   * certificate (`issuer_der`), whose key type and size the signer's key takes.
   */
  subjectSql: string;
  /** The keys whose signer is missing or expires before $1. */
  dueSql: string;
}
export const LEAF_SIGNERS: SignerLine = {
  table: 'ocsp.signers',
  key: 'tenant_id',
  // Named, not "whichever signs leaves now": after a rollover this CA still answers for its leaves.
  subjectSql:
    'SELECT tenant_id, ca_id, certificate_der AS issuer_der FROM ocsp.ca_certificates WHERE tenant_id = $1',
  dueSql: `SELECT c.tenant_id AS key FROM ocsp.ca_certificates c LEFT JOIN ocsp.signers s ON s.tenant_id = c.tenant_id
            WHERE c.not_after > now() AND (s.tenant_id IS NULL OR s.not_after < $1)`,
};
export const ROOT_SIGNERS: SignerLine = {
  table: 'ocsp.root_signers',
  key: 'tenant_id',
  issuer: ROOT_CRL_ISSUER,
  subjectSql:
    'SELECT tenant_id, NULL AS ca_id, root_certificate_der AS issuer_der FROM ocsp.ca_certificates WHERE tenant_id = $1',
  // A corporate root (docs/api.md#external-root) has no key here: nothing can certify its signer.
  dueSql: `SELECT c.tenant_id AS key FROM ocsp.ca_certificates c LEFT JOIN ocsp.root_signers s ON s.tenant_id = c.tenant_id
            WHERE c.not_after > now() AND (s.tenant_id IS NULL OR s.not_after < $1) AND c.root_certificate_der IS NOT NULL
              AND NOT c.external_root`,
};
export const ADDED_CA_SIGNERS: SignerLine = {
  table: 'ocsp.ca_signers',
  key: 'ca_id',
  subjectSql: 'SELECT tenant_id, ca_id, certificate_der AS issuer_der FROM ocsp.added_cas WHERE ca_id = $1',
  dueSql: `SELECT c.ca_id AS key FROM ocsp.added_cas c LEFT JOIN ocsp.ca_signers s ON s.ca_id = c.ca_id
            WHERE c.not_after > now() AND (s.ca_id IS NULL OR s.not_after < $1)`,
};

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
    private readonly dataSource: DataSource,
    private readonly custody: KeyCustody,
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly intervalMs = 30_000,
    private readonly line: SignerLine = LEAF_SIGNERS,
  ) {}

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
    let due: { key: string }[];
    try {
      due = await this.dataSource.query(this.line.dueSql, [new Date(Date.now() + SIGNER_RENEW_BEFORE_MS)]);
    } catch (err) {
      // The next sweep retries; meanwhile a tenant without a signer is answered `tryLater`.
      ocspMetrics.signerSweepFailuresTotal.inc();
      this.logger.warn({ err }, 'could not list tenants whose OCSP signer is due; the next sweep retries');
      return;
    }
    for (const { key } of due) if (!this.refused.has(key)) await this.ensure(key);
    // Longer than any signer lives: a later announcement of such a key is not ours either way.
    await this.dataSource
      .query("DELETE FROM ocsp.requested_signers WHERE requested_at < now() - interval '40 days'")
      .catch(() => undefined);
  }

  private async renewIfNeeded(tenantId: string): Promise<void> {
    const existing = await this.row(tenantId);
    const current = existing && existing.not_after.getTime() - Date.now() >= SIGNER_RENEW_BEFORE_MS;
    if (current && !this.unusable.has(tenantId)) return;
    const subjects: { tenant_id: string; ca_id: string | null; issuer_der: Buffer | null }[] =
      await this.dataSource.query(this.line.subjectSql, [tenantId]);
    if (subjects.length === 0) return;
    const { tenant_id: owner, ca_id: caId, issuer_der: issuerDer } = subjects[0];
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
    await this.dataSource.query(
      `INSERT INTO ocsp.requested_signers (public_key_sha256, tenant_id) VALUES ($1, $2)
       ON CONFLICT (public_key_sha256) DO NOTHING`,
      [createHash('sha256').update(key.publicKeySpki).digest('hex'), owner],
    );
    const issued = await this.issuance.send(IssuancePattern.IssueOcspSigner, {
      tenantId: owner,
      certificationRequest: Buffer.from(request).toString('base64'),
      ...(this.line.issuer ? { issuer: this.line.issuer } : {}),
      ...(caId ? { caId } : {}),
    });
    await this.dataSource.query(
      `INSERT INTO ${this.line.table} (${this.line.key}, key_id, key_algorithm, public_key_spki, wrapped_key, certificate_der, not_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (${this.line.key}) DO UPDATE SET key_id = EXCLUDED.key_id, key_algorithm = EXCLUDED.key_algorithm,
         public_key_spki = EXCLUDED.public_key_spki, wrapped_key = EXCLUDED.wrapped_key,
         certificate_der = EXCLUDED.certificate_der, not_after = EXCLUDED.not_after, created_at = now()`,
      [
        tenantId,
        keyId,
        key.algorithm,
        Buffer.from(key.publicKeySpki),
        Buffer.from(key.wrapped),
        Buffer.from(issued.certificateDer, 'base64'),
        issued.notAfter,
      ],
    );
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

  private async row(tenantId: string): Promise<SignerRow | undefined> {
    const rows: SignerRow[] = await this.dataSource.query(
      `SELECT key_id, key_algorithm, public_key_spki, wrapped_key, certificate_der, not_after FROM ${this.line.table} WHERE ${this.line.key} = $1`,
      [tenantId],
    );
    return rows[0];
  }
}
