import type { webcrypto } from 'node:crypto';
import { CaError, CrlIssuer, ErrorCode, ROOT_CRL_ISSUER } from '@ca/contracts';
import { CustodiedKey } from '@ca/custody';
import { parseCertificate, useProviderForKey } from '@ca/pki';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { EXTERNAL_KEY_CUSTODY } from './pending-ca.entity';
import { CaStore } from './ca.store';
import { chainOf } from './cross-chain';
import { PendingCaStore } from './pending-ca.store';
import { CaKeyCustodies } from '../custody/ca-key-custodies';
import type { SigningCaRow } from '../certificates/mint-facts.store';

export interface OpenedAuthority {
  authority: CertificateAuthorityEntity;
  privateKey: webcrypto.CryptoKey;
  /**
   * DER of the CA certificates between `authority` and the root, `authority` first, the root
   * excluded (docs/api.md#chains): empty when `authority` is the root; under a renewed root, the
   * cross certificates follow (docs/api.md#renew-the-root).
   */
  chain: Buffer[];
  /**
   * The end of `authority`'s usable life: its notAfter, or, under a corporate root
   * (docs/api.md#external-root), the earliest notAfter of the whole chain up to that root, since a
   * certificate is valid only while every certificate of its path is (RFC 5280 6.1.3 (a)(2)).
   * Nothing it signs may end later.
   */
  validUntil: Date;
}

const NO_CA = 'This tenant has no certificate authority; initialize one with POST /v1/ca/initialize first.';

/**
 * The one place a CA key is opened. Opened keys are non-extractable WebCrypto handles kept in
 * memory per CA, so issuing does not unwrap the key every time; the wrapped form is all that is stored.
 */
export class CertificateAuthoritySigner {
  private readonly opened = new Map<string, Promise<OpenedAuthority>>();

  constructor(
    private readonly cas: CaStore,
    private readonly pendingCas: PendingCaStore,
    private readonly custodies: CaKeyCustodies,
  ) {}

  /**
   * The tenant's CA that signs leaves now, with its key ready to sign: the issuing CA that is not
   * retired when the tenant has one, else its root. NOT_FOUND when the tenant has no CA. Which CA
   * that is is read from the database every time (one indexed query), so a rollover or revocation
   * made through any replica takes effect on every replica at once; only opened keys are cached.
   */
  async forTenant(tenantId: string): Promise<OpenedAuthority> {
    return this.openById((await this.currentRow(tenantId)).id);
  }

  /**
   * forTenant for a new leaf, from the row MintFactsStore read with the leaf's other checks:
   * CONFLICT ISSUING_CA_REVOKED once the issuing CA is revoked (docs/api.md#revoke-an-issuing-ca)
   * until a new one is added (docs/api.md#add-an-issuing-ca).
   */
  async forLeavesOf(tenantId: string, signingCa: SigningCaRow | undefined): Promise<OpenedAuthority> {
    const current = await this.present(tenantId, signingCa);
    if (current.revokedAt) {
      throw CaError.conflict(
        "This tenant's issuing CA is revoked: no certificate is signed with it until a new issuing CA exists (POST /v2/ca/issuing).",
        ErrorCode.IssuingCaRevoked,
      );
    }
    return this.openById(current.id);
  }

  /**
   * The CA that signs a CRL or OCSP signer: the one that signs leaves now (`/crl`, leaves' OCSP);
   * with `caId`, that CA of the tenant, current or retired, for the leaves it signed
   * (docs/api.md#add-an-issuing-ca); with `root`, the root (root.crl, OCSP for the issuing CA;
   * docs/api.md#distribution-points). A root that signs leaves itself has nothing of its own to
   * sign as `root`: FORBIDDEN, so a forged request cannot use up the numbers of its CRL or certify
   * a second signer.
   */
  async forIssuer(tenantId: string, issuer?: CrlIssuer, caId?: string): Promise<OpenedAuthority> {
    if (caId !== undefined && issuer !== ROOT_CRL_ISSUER) {
      const opened = await this.openById(caId);
      if (opened.authority.tenantId !== tenantId) throw CaError.notFound('No CA of this tenant has this id.');
      return opened;
    }
    const leaves = await this.forTenant(tenantId);
    if (issuer !== ROOT_CRL_ISSUER) return leaves;
    // root.crl is the tenant's first root's, also after a renewal (docs/api.md#renew-the-root).
    const root = await this.openById(await this.rootId(tenantId, 'first'));
    if (root.authority.id === leaves.authority.id || (await this.rootSignedLeaves(root.authority.id))) {
      throw new CaError(
        ErrorCode.Forbidden,
        'This tenant has no root CRL: its root signs one CRL, for the leaves and issuing CAs it signed.',
      );
    }
    return root;
  }

  /**
   * The tenant's current root with its key: it signs only issuing CAs and its CRL. After a renewal
   * (docs/api.md#renew-the-root) the newest root; the retired ones by id (`forIssuer` with `caId`).
   */
  async rootOf(tenantId: string): Promise<OpenedAuthority> {
    return this.openById(await this.rootId(tenantId, 'current'));
  }

  /** The id of the root not retired (`current`), or of the tenant's first root (`first`). */
  private async rootId(tenantId: string, which: 'current' | 'first'): Promise<string> {
    const id = await this.cas.rootId(tenantId, which);
    if (id === undefined) throw CaError.notFound(NO_CA);
    return id;
  }

  /**
   * Whether a root signed leaves before an issuing CA was added under it: its one CRL (its own path,
   * docs/api.md#add-an-issuing-ca) then lists both, and there is no separate root.crl. Read fresh:
   * an issuing CA added through another replica changes it.
   */
  private async rootSignedLeaves(rootId: string): Promise<boolean> {
    return this.cas.hasOwnDistributionPoints(rootId);
  }

  /** The CA that signs leaves now: the issuing CA not retired, else the root. */
  private async currentRow(tenantId: string): Promise<SigningCaRow> {
    return this.present(tenantId, await this.cas.signingLeaves(tenantId));
  }

  /** The CA that signs leaves, or why there is none: CONFLICT while it waits for its certificate, else NOT_FOUND. */
  private async present(tenantId: string, current: SigningCaRow | undefined): Promise<SigningCaRow> {
    if (!current) {
      // docs/api.md#external-root: a CA made, waiting for its certificate from the corporate root.
      if (await this.pendingCas.waits(tenantId)) {
        throw CaError.conflict(
          "This tenant's issuing CA waits for its certificate from the corporate root: nothing is signed until it is uploaded (PUT /v2/ca/{caId}/certificate).",
          ErrorCode.IssuingCaPending,
        );
      }
      throw CaError.notFound(NO_CA);
    }
    return current;
  }

  private openById(caId: string): Promise<OpenedAuthority> {
    const cached = this.opened.get(caId);
    if (cached) return cached;
    const opening = this.cas.byId(caId).then((authority) => {
      if (!authority) throw CaError.notFound('No CA of this tenant has this id.');
      return this.open(authority);
    });
    this.opened.set(caId, opening);
    opening.catch(() => this.opened.delete(caId));
    return opening;
  }

  private async open(authority: CertificateAuthorityEntity): Promise<OpenedAuthority> {
    if (authority.keyCustody === EXTERNAL_KEY_CUSTODY) {
      throw CaError.conflict(
        "This tenant's root is its corporate root (docs/api.md#external-root): no key of it is held here, so it signs nothing here.",
      );
    }
    const key: CustodiedKey = {
      keyId: authority.id,
      algorithm: authority.keyAlgorithm as CustodiedKey['algorithm'],
      publicKeySpki: new Uint8Array(authority.publicKeySpki),
      wrapped: new Uint8Array(authority.wrappedKey),
    };
    // A root key may be in a token of its own (docs/operations.md#key-custody).
    const { privateKey, crypto } = await this.custodies
      .forRole(authority.role)
      .openSigningKey({ tenantId: authority.tenantId, keyId: authority.id }, key);
    useProviderForKey(privateKey, crypto); // a token's key signs through the token's provider
    // The issuing CA, then intermediates up to a corporate root or cross certificates (cross-chain.ts).
    const chain = await chainOf(this.cas, authority);
    return { authority, privateKey, chain, validUntil: await this.validUntil(authority, chain) };
  }

  /** OpenedAuthority.validUntil (chainValidUntil), reading the issuer's row. */
  private async validUntil(authority: CertificateAuthorityEntity, chain: Buffer[]): Promise<Date> {
    if (!authority.issuerCaId) return authority.notAfter;
    const issuer = await this.cas.byId(authority.issuerCaId);
    return chainValidUntil(authority, issuer, chain);
  }
}

/**
 * RFC 5280 6.1.3 (a)(2): how long `authority` can certify anything. Under a corporate root (its
 * issuer held outside) the earliest notAfter of the CA, the certificates of its chain and that
 * root; under a root of ours its own notAfter (our builder keeps every CA within its issuer, and a
 * renewed root's cross certificates are an extra path, not the only one).
 */
export function chainValidUntil(
  authority: { notAfter: Date },
  issuer: { keyCustody: string; notAfter: Date } | null,
  chain: readonly Buffer[],
): Date {
  if (issuer?.keyCustody !== EXTERNAL_KEY_CUSTODY) return authority.notAfter;
  const ends = [authority.notAfter, issuer.notAfter, ...chain.map((der) => parseCertificate(der).notAfter)];
  return new Date(Math.min(...ends.map((end) => end.getTime())));
}
