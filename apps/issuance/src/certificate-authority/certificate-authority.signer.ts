import type { webcrypto } from 'node:crypto';
import { CaError, CaRole, CrlIssuer, ErrorCode, ROOT_CRL_ISSUER } from '@ca/contracts';
import { CustodiedKey, KeyCustody } from '@ca/custody';
import { useProviderForKey } from '@ca/pki';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from './certificate-authority.entity';

export interface OpenedAuthority {
  authority: CertificateAuthorityEntity;
  privateKey: webcrypto.CryptoKey;
  /**
   * DER of the CA certificates between `authority` and the root, `authority` first, the root
   * excluded (docs/api.md#chains): empty when `authority` is the root.
   */
  chain: Buffer[];
}

const NO_CA = 'This tenant has no certificate authority; initialize one with POST /v1/ca/initialize first.';

/**
 * The one place a CA key is opened. Opened keys are non-extractable WebCrypto handles kept in
 * memory per CA, so issuing does not unwrap the key every time; the wrapped form is all that is stored.
 */
export class CertificateAuthoritySigner {
  private readonly opened = new Map<string, Promise<OpenedAuthority>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly custody: KeyCustody,
  ) {}

  /**
   * The tenant's CA that signs leaves, its CRL and its OCSP signer, with its key ready to sign: the
   * issuing CA when the tenant has one, else its root. NOT_FOUND when the tenant has no CA.
   */
  async forTenant(tenantId: string): Promise<OpenedAuthority> {
    return this.cachedOpen(`leaves:${tenantId}`, async () => {
      const authorities = await this.dataSource
        .getRepository(CertificateAuthorityEntity)
        .find({ where: { tenantId } });
      const issuing = authorities.find(({ role }) => role === CaRole.Issuing);
      const authority = issuing ?? authorities.find(({ role }) => role === CaRole.Root);
      if (!authority) throw CaError.notFound(NO_CA);
      return authority;
    });
  }

  /**
   * forTenant for a new leaf: CONFLICT ISSUING_CA_REVOKED once the issuing CA is revoked
   * (docs/api.md#revoke-an-issuing-ca). Read from the database every time, not from the opened key
   * kept in memory, so a revocation made through any replica stops every replica at once.
   */
  async forLeaves(tenantId: string): Promise<OpenedAuthority> {
    const opened = await this.forTenant(tenantId);
    if (opened.authority.role !== CaRole.Issuing) return opened;
    const [row]: { revoked_at: Date | null }[] = await this.dataSource.query(
      'SELECT revoked_at FROM issuance.certificate_authorities WHERE id = $1',
      [opened.authority.id],
    );
    if (row?.revoked_at) {
      throw CaError.conflict(
        "This tenant's issuing CA is revoked: no certificate is signed with it until a new issuing CA exists.",
        ErrorCode.IssuingCaRevoked,
      );
    }
    return opened;
  }

  /**
   * The CA that signs a CRL or OCSP signer: the one that signs leaves (`/crl`, leaves' OCSP), or,
   * for `root`, the root (root.crl, OCSP for the issuing CA; docs/api.md#distribution-points). A
   * root that signs leaves itself has nothing of its own to sign: FORBIDDEN, so a forged request
   * cannot use up the numbers of `/crl` or certify a second signer.
   */
  async forIssuer(tenantId: string, issuer?: CrlIssuer): Promise<OpenedAuthority> {
    const leaves = await this.forTenant(tenantId);
    if (issuer !== ROOT_CRL_ISSUER) return leaves;
    const root = await this.rootOf(tenantId);
    if (root.authority.id === leaves.authority.id) {
      throw new CaError(
        ErrorCode.Forbidden,
        'This tenant has no issuing CA: its root signs for leaves only.',
      );
    }
    return root;
  }

  /** The tenant's root with its key: it signs only issuing CAs and the root CRL. */
  async rootOf(tenantId: string): Promise<OpenedAuthority> {
    return this.cachedOpen(`root:${tenantId}`, async () => {
      const root = await this.dataSource
        .getRepository(CertificateAuthorityEntity)
        .findOneBy({ tenantId, role: CaRole.Root });
      if (!root) throw CaError.notFound(NO_CA);
      return root;
    });
  }

  private cachedOpen(key: string, find: () => Promise<CertificateAuthorityEntity>): Promise<OpenedAuthority> {
    const cached = this.opened.get(key);
    if (cached) return cached;
    const opening = find().then((authority) => this.open(authority));
    this.opened.set(key, opening);
    opening.catch(() => this.opened.delete(key));
    return opening;
  }

  private async open(authority: CertificateAuthorityEntity): Promise<OpenedAuthority> {
    const key: CustodiedKey = {
      keyId: authority.id,
      algorithm: authority.keyAlgorithm as CustodiedKey['algorithm'],
      publicKeySpki: new Uint8Array(authority.publicKeySpki),
      wrapped: new Uint8Array(authority.wrappedKey),
    };
    const { privateKey, crypto } = await this.custody.openSigningKey(
      { tenantId: authority.tenantId, keyId: authority.id },
      key,
    );
    useProviderForKey(privateKey, crypto); // a token's key signs through the token's provider
    // One level today: an issuing CA is signed by the root (docs/api.md#initialize-the-ca-v2).
    const chain = authority.role === CaRole.Root ? [] : [authority.certificateDer];
    return { authority, privateKey, chain };
  }
}
