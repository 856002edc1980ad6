import { EventEnvelope } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { DataSource, EntityManager } from 'typeorm';
import { CaStore, SqlCaStore } from './certificate-authority/ca.store';
import { PendingCaStore, SqlPendingCaStore } from './certificate-authority/pending-ca.store';
import { BlockedKeyStore, SqlBlockedKeyStore } from './certificates/blocked-key.store';
import {
  CertificateInventoryStore,
  SqlCertificateInventoryStore,
} from './certificates/certificate-inventory.store';
import {
  CertificateRevocationStore,
  SqlCertificateRevocationStore,
} from './certificates/certificate-revocation.store';
import { CertificateStore, SqlCertificateStore } from './certificates/certificate.store';
import {
  CustomExtensionArcStore,
  SqlCustomExtensionArcStore,
} from './certificates/custom-extension-arc.store';
import {
  ExpiringCertificateStore,
  SqlExpiringCertificateStore,
} from './certificates/expiring-certificate.store';
import {
  InventoryCursorKeyStore,
  SqlInventoryCursorKeyStore,
} from './certificates/inventory-cursor-key.store';
import { ReplacementStore, SqlReplacementStore } from './certificates/replacement.store';
import { RevocationJobStore, SqlRevocationJobStore } from './certificates/revocation-job.store';
import { SqlWrappedKeyStore, WrappedKeyStore } from './custody/wrapped-key.store';
import { ISSUANCE_SCHEMA } from './issuance.schema';
import { IssuancePolicyStore, SqlIssuancePolicyStore } from './policy/issuance-policy.store';
import { OutboxStore, SqlOutboxStore } from './publication/outbox.store';
import { CrlEntryStore, SqlCrlEntryStore } from './signing/crl-entry.store';
import { CrlNumberStore, SqlCrlNumberStore } from './signing/crl-number.store';
import {
  OcspSignerCertificationStore,
  SqlOcspSignerCertificationStore,
} from './signing/ocsp-signer-certification.store';
import { MintFactsStore, SqlMintFactsStore } from './certificates/mint-facts.store';
import { SqlTenantStandingStore, TenantStandingStore } from './tenants/tenant-standing.store';

/** The stores of the issuance schema, on one connection (a transaction, or none). */
export interface IssuanceTables {
  cas: CaStore;
  pendingCas: PendingCaStore;
  certificates: CertificateStore;
  certificateRevocations: CertificateRevocationStore;
  inventory: CertificateInventoryStore;
  inventoryCursorKeys: InventoryCursorKeyStore;
  revocationJobs: RevocationJobStore;
  replacements: ReplacementStore;
  expiringCertificates: ExpiringCertificateStore;
  blockedKeys: BlockedKeyStore;
  customExtensionArcs: CustomExtensionArcStore;
  policies: IssuancePolicyStore;
  mintFacts: MintFactsStore;
  tenants: TenantStandingStore;
  outbox: OutboxStore;
  crlEntries: CrlEntryStore;
  crlNumbers: CrlNumberStore;
  ocspSigners: OcspSignerCertificationStore;
  wrappedKeys: WrappedKeyStore;
}

/**
 * The issuance schema as a whole: its stores outside any transaction (`tables`), one
 * transaction over several of them, and an event applied once (its id in `issuance.inbox` in
 * the same transaction, so a redelivered event changes nothing).
 */
export abstract class IssuanceDatabase {
  abstract readonly tables: IssuanceTables;
  /** Runs `work` in one transaction, on stores bound to it. */
  abstract transaction<T>(work: (tables: IssuanceTables) => Promise<T>): Promise<T>;
  /** Runs `work` for `event` unless it was applied before (then returns false), in one transaction. */
  abstract applyOnce(event: EventEnvelope, work: (tables: IssuanceTables) => Promise<void>): Promise<boolean>;
  /** Whether the database answers (`/health/ready`). */
  abstract ready(): Promise<boolean>;
}

export class SqlIssuanceDatabase extends IssuanceDatabase {
  readonly tables: IssuanceTables;

  constructor(private readonly dataSource: DataSource) {
    super();
    this.tables = sqlIssuanceTables(dataSource.manager);
  }

  transaction<T>(work: (tables: IssuanceTables) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(sqlIssuanceTables(manager)));
  }

  applyOnce(event: EventEnvelope, work: (tables: IssuanceTables) => Promise<void>): Promise<boolean> {
    return applyOnce(this.dataSource, ISSUANCE_SCHEMA, event, (manager) => work(sqlIssuanceTables(manager)));
  }

  async ready(): Promise<boolean> {
    return this.dataSource.isInitialized && (await this.dataSource.query('SELECT 1')) !== undefined;
  }
}

/** The stores bound to `manager` (a transaction's, or the data source's). */
export function sqlIssuanceTables(manager: EntityManager): IssuanceTables {
  return {
    cas: new SqlCaStore(manager),
    pendingCas: new SqlPendingCaStore(manager),
    certificates: new SqlCertificateStore(manager),
    certificateRevocations: new SqlCertificateRevocationStore(manager),
    inventory: new SqlCertificateInventoryStore(manager),
    inventoryCursorKeys: new SqlInventoryCursorKeyStore(manager),
    revocationJobs: new SqlRevocationJobStore(manager),
    replacements: new SqlReplacementStore(manager),
    expiringCertificates: new SqlExpiringCertificateStore(manager),
    blockedKeys: new SqlBlockedKeyStore(manager),
    customExtensionArcs: new SqlCustomExtensionArcStore(manager),
    policies: new SqlIssuancePolicyStore(manager),
    mintFacts: new SqlMintFactsStore(manager),
    tenants: new SqlTenantStandingStore(manager),
    outbox: new SqlOutboxStore(manager),
    crlEntries: new SqlCrlEntryStore(manager),
    crlNumbers: new SqlCrlNumberStore(manager),
    ocspSigners: new SqlOcspSignerCertificationStore(manager),
    wrappedKeys: new SqlWrappedKeyStore(manager),
  };
}
