import { CrlIssuer, ROOT_CRL_ISSUER } from '@ca/contracts';
import type { DataSource } from 'typeorm';

export interface SignerRow {
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

/** Who a new signer is for: the tenant, the CA asked to certify it (none: the line's issuer), that CA's certificate. */
export interface SignerSubject {
  tenant_id: string;
  ca_id: string | null;
  issuer_der: Buffer | null;
}

/** A signer as stored: its key as custody wrapped it, and its certificate. */
export interface NewSigner {
  keyId: string;
  keyAlgorithm: string;
  publicKeySpki: Buffer;
  wrappedKey: Buffer;
  certificateDer: Buffer;
  notAfter: string;
}

/** One line's signers (ocsp.signers, ocsp.root_signers or ocsp.ca_signers), by its key. */
export abstract class OcspSignerStore {
  abstract readonly line: SignerLine;
  /** The keys whose signer is missing or expires before `before`. */
  abstract due(before: Date): Promise<string[]>;
  /** Who a signer for this key is made for; none when the key names no CA held here. */
  abstract subject(key: string): Promise<SignerSubject | undefined>;
  /** The key's stored signer, if any. */
  abstract find(key: string): Promise<SignerRow | undefined>;
  /** Stores the key's signer, replacing the one before. */
  abstract save(key: string, signer: NewSigner): Promise<void>;
}

export class SqlOcspSignerStore extends OcspSignerStore {
  constructor(
    private readonly dataSource: DataSource,
    readonly line: SignerLine = LEAF_SIGNERS,
  ) {
    super();
  }

  async due(before: Date): Promise<string[]> {
    const rows: { key: string }[] = await this.dataSource.query(this.line.dueSql, [before]);
    return rows.map((r) => r.key);
  }

  async subject(key: string): Promise<SignerSubject | undefined> {
    const subjects: SignerSubject[] = await this.dataSource.query(this.line.subjectSql, [key]);
    return subjects[0];
  }

  async find(key: string): Promise<SignerRow | undefined> {
    const rows: SignerRow[] = await this.dataSource.query(
      `SELECT key_id, key_algorithm, public_key_spki, wrapped_key, certificate_der, not_after FROM ${this.line.table} WHERE ${this.line.key} = $1`,
      [key],
    );
    return rows[0];
  }

  async save(key: string, signer: NewSigner): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${this.line.table} (${this.line.key}, key_id, key_algorithm, public_key_spki, wrapped_key, certificate_der, not_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (${this.line.key}) DO UPDATE SET key_id = EXCLUDED.key_id, key_algorithm = EXCLUDED.key_algorithm,
         public_key_spki = EXCLUDED.public_key_spki, wrapped_key = EXCLUDED.wrapped_key,
         certificate_der = EXCLUDED.certificate_der, not_after = EXCLUDED.not_after, created_at = now()`,
      [
        key,
        signer.keyId,
        signer.keyAlgorithm,
        signer.publicKeySpki,
        signer.wrappedKey,
        signer.certificateDer,
        signer.notAfter,
      ],
    );
  }
}
