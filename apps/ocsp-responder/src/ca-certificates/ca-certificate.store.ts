import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  CaInitializedPayload,
  CaRevokedPayload,
  EventEnvelope,
  IssuingCaAddedPayload,
  RootRenewedPayload,
  parseTenantId,
  parseUuid,
} from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { isDatabaseUnavailable } from '@ca/persistence';
import { issuedByProblem, parseCertificate } from '@ca/pki';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OCSP_SCHEMA } from '../ocsp.schema';
import { STATUS_CHANGED_CHANNEL } from '../certificate-status/status-change-channel.store';
import { applyRootRenewed } from './renewed-root.store';

const logger = new Logger('CaCertificateStore');

/** One published CA certificate with its HTTP validators. */
export interface PublishedCertificate {
  der: Buffer;
  etag: string;
  lastModified: Date;
}

/** An issuing CA added after initialization (docs/api.md#add-an-issuing-ca). */
export interface AddedCa {
  caId: string;
  /** Hex, as the certificate carries it: OCSP for the CA itself. */
  serialNumberHex: string;
  certificate: PublishedCertificate;
  /** The root that signed it, when known (docs/api.md#renew-the-root: there may be several). */
  issuerCaId?: string;
}

/** A root made by renewal (docs/api.md#renew-the-root), with the cross certificate its predecessor signed. */
export interface RenewedRoot {
  caId: string;
  certificate: PublishedCertificate;
  cross: PublishedCertificate;
}

export interface ServedCaCertificate {
  tenantId: string;
  /**
   * The CA made at initialization that signs (or signed) leaves pointing at `/crl`: the issuing CA
   * when there is one, else the root. Its CRL is `ocsp.crls`, its OCSP signer `ocsp.signers`.
   */
  caId: string;
  der: Buffer;
  /** The root's id, when known (docs/api.md#add-an-issuing-ca: its own path). */
  rootCaId?: string;
  /** ca.pem / ca.crt: the root, the trust anchor partners install. */
  root: PublishedCertificate;
  /**
   * ca.pem / ca.crt, the trust anchor to install: the first root until its notAfter, then the
   * newest root made by renewal that is still valid (docs/api.md#renew-the-root). Nothing the first
   * root certified outlives it, so once it has expired no caIssuers that names ca.crt is followed.
   */
  anchor: PublishedCertificate;
  /** Whether the root is another CA than `der`: it then has root.crl and a signer of its own. */
  separateRoot: boolean;
  /**
   * The root is the tenant's corporate root (docs/api.md#external-root): no key of it is held, so
   * it has no root.crl and no signer here, and OCSP about the issuing CA is `unauthorized`.
   */
  externalRoot: boolean;
  /**
   * issuing-ca.pem / issuing-ca.crt: the issuing CA made at initialization (its leaves name this
   * path); for a tenant whose root signed leaves, the newest added issuing CA; else absent.
   */
  issuing?: PublishedCertificate;
  /** Issuing CAs added later, oldest first: the last one signs leaves now, at its own paths. */
  added: AddedCa[];
  /** Roots made by renewal, oldest first; `root` stays the first one (ca.pem). */
  renewedRoots: RenewedRoot[];
}

/**
 * How long a replica serves what it read of a tenant's CAs before reading again: an issuing CA
 * added through another replica's events is served everywhere within this time.
 */
export const CA_CACHE_MS = 5_000;

/**
 * How long a request for a tenant's CA certificate waits for it when none is here yet: a client
 * that has just initialized a CA asks for ca.pem before `ca.initialized` has reached the responder
 * (tens of milliseconds on a quiet machine), and should get the certificate, not a 404.
 */
export const CA_PUBLICATION_WAIT_MS = 3_000;

/** Tenants waited for at once; a request for another unknown tenant gets its 404 at once. */
const MAX_TENANTS_WAITED_FOR = 32;

/** How often a wait reads the table, for a CA projected by another replica of the responder. */
const WAIT_POLL_MS = 100;

/**
 * The responder's own copy of every tenant's CA certificates, fed by `ca.initialized`, so the
 * public surface answers without the issuance service. Reads are cached in memory for
 * CA_CACHE_MS: a CA certificate never changes once published, but a tenant may get a new issuing CA. The row's `ca_id` and `certificate_der` are the CA
 * that signs leaves (docs/api.md#chains); `root_certificate_der` the root when that is another CA.
 */
export class CaCertificateStore {
  private readonly cache = new Map<string, { served: ServedCaCertificate; readAt: number }>();
  /** Emits a tenant's id (lower case) once its `ca.initialized` is recorded by this process. */
  private readonly recorded = new EventEmitter().setMaxListeners(0);
  private readonly waits = new Map<string, Promise<ServedCaCertificate | undefined>>();
  private notifyReplicas = false;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * The tenant's certificates, waiting up to `ms` for them when it has none yet (see
   * CA_PUBLICATION_WAIT_MS): woken by this process's projection, else reading again every
   * WAIT_POLL_MS. Requests for one tenant share one wait; at most MAX_TENANTS_WAITED_FOR tenants
   * are waited for at once, so requests for made-up tenants cannot keep the database busy.
   */
  async findOrWait(tenantId: string, ms = CA_PUBLICATION_WAIT_MS): Promise<ServedCaCertificate | undefined> {
    const found = await this.find(tenantId);
    const key = parseTenantId(tenantId);
    if (found || !key) return found;
    const pending = this.waits.get(key);
    if (pending) return pending;
    if (this.waits.size >= MAX_TENANTS_WAITED_FOR) return undefined;
    const wait = this.waitFor(key, ms).finally(() => this.waits.delete(key));
    this.waits.set(key, wait);
    return wait;
  }

  private async waitFor(key: string, ms: number): Promise<ServedCaCertificate | undefined> {
    const deadline = Date.now() + ms;
    let wake = () => undefined as void;
    const onRecorded = (tenant: string) => tenant === key && wake();
    this.recorded.on('recorded', onRecorded);
    try {
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(WAIT_POLL_MS, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        const found = await this.find(key);
        if (found) return found;
      }
    } finally {
      this.recorded.off('recorded', onRecorded);
    }
  }

  /**
   * Records the tenant's CAs from a `ca.initialized`. With `vouched` (issuance confirmed these
   * very certificates, IssuanceCaCheck), a row that differs (a squatter's, recorded before this
   * check existed) is replaced, and the CRLs verified against it are dropped; returns whether it
   * replaced one. Without, the first row stays.
   */
  async apply(event: EventEnvelope<CaInitializedPayload>, vouched = false): Promise<boolean> {
    const {
      tenantId,
      caId,
      certificateDer,
      notAfter,
      issuingCaId,
      issuingCertificateDer,
      issuingNotAfter,
      externalRoot,
    } = event.payload;
    const issuing = issuingCaId && issuingCertificateDer && issuingNotAfter;
    const values = issuing
      ? [
          tenantId,
          issuingCaId,
          Buffer.from(issuingCertificateDer, 'base64'),
          issuingNotAfter,
          event.occurredAt,
          Buffer.from(certificateDer, 'base64'),
          caId,
          externalRoot === true,
        ]
      : [
          tenantId,
          caId,
          Buffer.from(certificateDer, 'base64'),
          notAfter,
          event.occurredAt,
          null,
          caId,
          false,
        ];
    let replaced = false;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at, root_certificate_der, root_ca_id, external_root)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tenant_id) DO NOTHING RETURNING 1`,
        values,
      );
      if (inserted.length > 0 || !vouched) return;
      const updated: unknown[] = await manager.query(
        `UPDATE ocsp.ca_certificates SET ca_id = $2, certificate_der = $3, not_after = $4, published_at = $5,
                root_certificate_der = $6, root_ca_id = $7, external_root = $8
          WHERE tenant_id = $1
            AND (ca_id, certificate_der, root_certificate_der) IS DISTINCT FROM ($2::uuid, $3::bytea, $6::bytea)
         RETURNING 1`,
        values,
      );
      if (updated.length === 0) return;
      // Verified against the replaced CA: none of them is the real CA's.
      await manager.query('DELETE FROM ocsp.crls WHERE tenant_id = $1', [tenantId]);
      await manager.query('DELETE FROM ocsp.root_crls WHERE tenant_id = $1', [tenantId]);
      replaced = true;
    });
    this.cache.delete(tenantId.toLowerCase());
    this.recorded.emit('recorded', tenantId.toLowerCase());
    return replaced;
  }

  /**
   * Records an issuing CA added under the tenant's root (docs/api.md#add-an-issuing-ca), served at
   * its own paths. Refused when envelope and payload name different tenants.
   */
  async applyIssuingAdded(event: EventEnvelope<IssuingCaAddedPayload>): Promise<boolean> {
    const { tenantId, caId, certificateDer, notAfter, issuerCaId } = event.payload;
    let refusal: string | undefined;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) {
        refusal = 'envelope and payload name different tenants';
        return;
      }
      // The root named must be one this responder holds for the tenant (made at initialization, or
      // renewed), and its key must have signed the new CA (RFC 5280 6.1.3 (a)(1)).
      const roots: { der: Buffer }[] = await manager.query(
        `SELECT COALESCE(root_certificate_der, certificate_der) AS der FROM ocsp.ca_certificates
          WHERE tenant_id = $1 AND (root_ca_id = $2 OR root_ca_id IS NULL)
         UNION ALL
         SELECT certificate_der AS der FROM ocsp.added_cas WHERE tenant_id = $1 AND ca_id = $2 AND role = 'root'`,
        [tenantId, issuerCaId],
      );
      refusal =
        roots.length === 0
          ? 'the root named is not a root of this tenant'
          : issuedByProblem(roots[0].der, Buffer.from(certificateDer, 'base64'));
      if (refusal) return;
      await manager.query(
        `INSERT INTO ocsp.added_cas (ca_id, tenant_id, certificate_der, not_after, published_at, issuer_ca_id)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (ca_id) DO NOTHING`,
        [caId, tenantId, Buffer.from(certificateDer, 'base64'), notAfter, event.occurredAt, issuerCaId],
      );
    });
    if (refusal) {
      logger.warn(
        { eventId: event.id, tenantId: event.tenantId, caId, reason: refusal },
        'ca.issuing-added refused',
      );
      return false;
    }
    await this.changed(tenantId);
    return true;
  }

  /** docs/api.md#renew-the-root: a new root and its cross certificate, checked (renewed-root.store.ts). */
  async applyRootRenewed(event: EventEnvelope<RootRenewedPayload>): Promise<boolean> {
    const recorded = await applyRootRenewed(this.dataSource, event);
    await this.changed(event.tenantId);
    return recorded;
  }

  /**
   * Other replicas share the schema (not in embedded mode): a CA added or renewed here is then
   * announced to them, so none serves its cached list of the tenant's CAs (CA_CACHE_MS) without it.
   */
  notifyOtherReplicas(): void {
    this.notifyReplicas = true;
  }

  /**
   * Called for another replica's change (StatusChangeListener). The notification names no tenant
   * (any database role may listen), so every tenant's CAs are read again.
   */
  changedElsewhere(): void {
    this.cache.clear();
  }

  /**
   * After a commit that changed the tenant's CAs: forgotten here, and on every other replica by a
   * notification on the status channel (naming nothing) sent before this returns, so before the
   * direct path answers issuance (docs/architecture.md#read-your-writes).
   */
  private async changed(tenantId: string): Promise<void> {
    this.cache.delete(tenantId.toLowerCase());
    if (!this.notifyReplicas) return;
    await this.dataSource.query(`SELECT pg_notify($1, '')`, [STATUS_CHANGED_CHANNEL]);
  }

  /**
   * Records the revocation of the tenant's issuing CA (docs/api.md#revoke-an-issuing-ca), once: only
   * for the issuing CA this row holds and the root that signed it, so a forged event for another
   * tenant's CA changes nothing.
   */
  async applyCaRevoked(event: EventEnvelope<CaRevokedPayload>): Promise<void> {
    const { tenantId, caId, revokedAt, reasonCode } = event.payload;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      // A revoked cross certificate goes on its issuer's CRL only: it names no OCSP responder, and
      // `caId` (the renewed root it certified) stays valid (docs/api.md#revoke-a-cross-certificate).
      if (event.tenantId !== tenantId || event.payload.crossCertificate) return;
      await manager.query(
        `UPDATE ocsp.ca_certificates SET issuing_revoked_at = $3, issuing_reason_code = $4
          WHERE tenant_id = $1 AND ca_id = $2 AND root_certificate_der IS NOT NULL AND issuing_revoked_at IS NULL`,
        [tenantId, caId, revokedAt, reasonCode],
      );
      await manager.query(
        `UPDATE ocsp.added_cas SET revoked_at = $3, reason_code = $4
          WHERE tenant_id = $1 AND ca_id = $2 AND revoked_at IS NULL`,
        [tenantId, caId, revokedAt, reasonCode],
      );
    });
  }

  /**
   * Whether `caId` is an issuing CA added after initialization or a renewed root (their CRLs are
   * kept per CA).
   */
  async isAdded(caId: string): Promise<boolean> {
    const id = parseUuid(caId);
    if (!id) return false;
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM ocsp.added_cas WHERE ca_id = $1', [
      id,
    ]);
    return rows.length > 0;
  }

  /** The revocation of an added issuing CA, read every time like `issuingRevocation`. */
  async addedRevocation(caId: string): Promise<{ revokedAt: Date; reasonCode: number } | undefined> {
    const rows: { revoked_at: Date | null; reason_code: number | null }[] = await this.dataSource.query(
      'SELECT revoked_at, reason_code FROM ocsp.added_cas WHERE ca_id = $1',
      [caId],
    );
    const row = rows[0];
    if (!row?.revoked_at) return undefined;
    return { revokedAt: row.revoked_at, reasonCode: row.reason_code ?? 0 };
  }

  /**
   * Whether the tenant's issuing CA is revoked, read from the table every time (never cached): a
   * revocation through any replica is answered at once. Asked only for CertIDs under the root.
   */
  async issuingRevocation(tenantId: string): Promise<{ revokedAt: Date; reasonCode: number } | undefined> {
    const rows: { issuing_revoked_at: Date | null; issuing_reason_code: number | null }[] =
      await this.dataSource.query(
        'SELECT issuing_revoked_at, issuing_reason_code FROM ocsp.ca_certificates WHERE tenant_id = $1',
        [tenantId.toLowerCase()],
      );
    const row = rows[0];
    if (!row?.issuing_revoked_at) return undefined;
    return { revokedAt: row.issuing_revoked_at, reasonCode: row.issuing_reason_code ?? 0 };
  }

  /** The certificates if this replica has already read them (no query; possibly CA_CACHE_MS old). */
  cached(tenantId: string): ServedCaCertificate | undefined {
    const key = parseTenantId(tenantId);
    return key ? this.cache.get(key)?.served : undefined;
  }

  async find(tenantId: string): Promise<ServedCaCertificate | undefined> {
    const key = parseTenantId(tenantId);
    if (!key) return undefined;
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.readAt < CA_CACHE_MS) return cached.served;
    try {
      return await this.read(key);
    } catch (error) {
      // The database is away or refuses the responder: what this replica read of the tenant's
      // CAs before is still what it serves (docs/security.md, "Database failures").
      if (cached && isDatabaseUnavailable(error)) return cached.served;
      throw error;
    }
  }

  private async read(key: string): Promise<ServedCaCertificate | undefined> {
    const readAt = Date.now();
    const rows: {
      ca_id: string;
      certificate_der: Buffer;
      root_certificate_der: Buffer | null;
      root_ca_id: string | null;
      published_at: Date;
      external_root: boolean;
    }[] = await this.dataSource.query(
      'SELECT ca_id, certificate_der, root_certificate_der, root_ca_id, published_at, external_root FROM ocsp.ca_certificates WHERE tenant_id = $1',
      [key],
    );
    if (rows.length === 0) return undefined;
    const {
      ca_id: caId,
      certificate_der: der,
      root_certificate_der: rootDer,
      published_at: publishedAt,
    } = rows[0];
    const addedRows: {
      ca_id: string;
      certificate_der: Buffer;
      published_at: Date;
      role: string;
      issuer_ca_id: string | null;
      cross_certificate_der: Buffer | null;
    }[] = await this.dataSource.query(
      `SELECT ca_id, certificate_der, published_at, role, issuer_ca_id, cross_certificate_der FROM ocsp.added_cas
        WHERE tenant_id = $1 ORDER BY published_at, ca_id`,
      [key],
    );
    const added = addedRows
      .filter((row) => row.role !== 'root')
      .map((row) => ({
        caId: row.ca_id,
        serialNumberHex: parseCertificate(new Uint8Array(row.certificate_der)).serialNumberHex,
        certificate: published(row.certificate_der, row.published_at),
        ...(row.issuer_ca_id ? { issuerCaId: row.issuer_ca_id } : {}),
      }));
    const renewedRoots = addedRows.flatMap((row) =>
      row.role === 'root' && row.cross_certificate_der
        ? [
            {
              caId: row.ca_id,
              certificate: published(row.certificate_der, row.published_at),
              cross: published(row.cross_certificate_der, row.published_at),
            },
          ]
        : [],
    );
    // issuing-ca.* is the AIA caIssuers of the leaves of the issuing CA made at initialization, so it
    // stays that CA after a rollover (RFC 5280 4.2.2.1); only a root-only tenant's first added CA,
    // which no leaf names there, takes the path.
    const current = rootDer ? published(der, publishedAt) : added.at(-1)?.certificate;
    const first = published(rootDer ?? der, publishedAt);
    const served: ServedCaCertificate = {
      tenantId: key,
      caId,
      der,
      ...(rows[0].root_ca_id ? { rootCaId: rows[0].root_ca_id } : {}),
      root: first,
      anchor: trustAnchor(first, renewedRoots, readAt),
      separateRoot: rootDer !== null,
      externalRoot: rows[0].external_root === true,
      ...(current ? { issuing: current } : {}),
      added,
      renewedRoots,
    };
    this.cache.set(key, { served, readAt });
    return served;
  }

  /**
   * The certificate of one CA of the tenant, current or retired (docs/api.md#add-an-issuing-ca):
   * the CA made at initialization, the root, or an added one; undefined for any other id.
   */
  async certificateOf(
    tenantId: string,
    caId: string,
    cross = false,
  ): Promise<PublishedCertificate | undefined> {
    const ca = await this.find(tenantId);
    const id = parseUuid(caId);
    if (!ca || !id) return undefined;
    // docs/api.md#renew-the-root: a renewed root at `ca/{caId}.*`, its cross certificate at `-cross.*`.
    const renewed = ca.renewedRoots.find((root) => root.caId === id);
    if (cross || renewed) return cross ? renewed?.cross : renewed?.certificate;
    if (id === ca.caId) return ca.separateRoot ? published(ca.der, ca.root.lastModified) : ca.root;
    if (id === ca.rootCaId) return ca.root;
    return ca.added.find((added) => added.caId === id)?.certificate;
  }
}

/** The first root while it is valid, else the newest renewed root still valid (else the first). */
function trustAnchor(first: PublishedCertificate, renewed: RenewedRoot[], now: number): PublishedCertificate {
  const valid = (certificate: PublishedCertificate) =>
    parseCertificate(new Uint8Array(certificate.der)).notAfter.getTime() > now;
  if (valid(first)) return first;
  return (
    renewed
      .map((root) => root.certificate)
      .filter(valid)
      .at(-1) ?? first
  );
}

function published(der: Buffer, lastModified: Date): PublishedCertificate {
  return { der, etag: `"${createHash('sha256').update(der).digest('base64url')}"`, lastModified };
}
