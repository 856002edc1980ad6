import type { webcrypto } from 'node:crypto';
import { CaError } from '@ca/contracts';
import { CustodiedKey, KeyCustody } from '@ca/custody';
import { useProviderForKey } from '@ca/pki';
import { DataSource } from 'typeorm';
import { CertificateAuthorityEntity } from './certificate-authority.entity';

export interface OpenedAuthority {
  authority: CertificateAuthorityEntity;
  privateKey: webcrypto.CryptoKey;
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

  /** The tenant's CA with its key ready to sign; NOT_FOUND when the tenant has none. */
  async forTenant(tenantId: string): Promise<OpenedAuthority> {
    const cached = this.opened.get(tenantId);
    if (cached) return cached;
    const authority = await this.dataSource.getRepository(CertificateAuthorityEntity).findOneBy({ tenantId });
    if (!authority) throw CaError.notFound(NO_CA);
    const opening = this.open(authority);
    this.opened.set(tenantId, opening);
    opening.catch(() => this.opened.delete(tenantId));
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
    return { authority, privateKey };
  }
}
