import { EventEnvelope } from '@ca/contracts';
import { applyOnce, applyOnceEach } from '@ca/messaging';
import { DataSource, EntityManager } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';
import { CrlIssuerStore, SqlCrlIssuerStore } from './crl-issuer.store';
import { CrlOutboxStore, SqlCrlOutboxStore } from './crl-outbox.store';
import { CrlStore, SqlCrlStore } from './crl.store';
import { RevokedCaStore, SqlRevokedCaStore } from './revoked-ca.store';
import { RevokedCertificateStore, SqlRevokedCertificateStore } from './revoked-certificate.store';
import { RootCrlIssuerStore, SqlRootCrlIssuerStore } from './root-crl-issuer.store';

/** The stores of the revocation schema, on one connection (a transaction, or none). */
export interface RevocationTables {
  issuers: CrlIssuerStore;
  rootIssuers: RootCrlIssuerStore;
  ledger: RevokedCertificateStore;
  revokedCas: RevokedCaStore;
  crls: CrlStore;
  outbox: CrlOutboxStore;
}

/**
 * The revocation schema as a whole: its stores outside any transaction (`tables`), one
 * transaction over several of them, and an event applied once (its id in `revocation.inbox` in
 * the same transaction, so a redelivered event changes nothing).
 */
export abstract class RevocationDatabase {
  abstract readonly tables: RevocationTables;
  /** Runs `work` in one transaction, on stores bound to it. */
  abstract transaction<T>(work: (tables: RevocationTables) => Promise<T>): Promise<T>;
  /** Runs `work` for `event` unless it was applied before (then returns false), in one transaction. */
  abstract applyOnce(
    event: EventEnvelope,
    work: (tables: RevocationTables) => Promise<void>,
  ): Promise<boolean>;
  /**
   * Runs `work` once for the events of `events` not applied before (`fresh`), all in one
   * transaction with their inbox rows; returns those fresh events.
   */
  abstract applyOnceEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (tables: RevocationTables, fresh: T[]) => Promise<void>,
  ): Promise<T[]>;
  /**
   * Runs `work` in one transaction for the events of `events` not applied before (`unseen`); only
   * those `work` returns as applied go into the inbox, in that transaction, so the others are still
   * applied when the stream brings them. Returns the applied events.
   */
  abstract applyEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (tables: RevocationTables, unseen: T[]) => Promise<T[]>,
  ): Promise<T[]>;
  /** Whether the database answers (`/health/ready`). */
  abstract ready(): Promise<boolean>;
}

export class SqlRevocationDatabase extends RevocationDatabase {
  readonly tables: RevocationTables;

  constructor(private readonly dataSource: DataSource) {
    super();
    this.tables = sqlTables(dataSource.manager);
  }

  transaction<T>(work: (tables: RevocationTables) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(sqlTables(manager)));
  }

  applyOnce(event: EventEnvelope, work: (tables: RevocationTables) => Promise<void>): Promise<boolean> {
    return applyOnce(this.dataSource, REVOCATION_SCHEMA, event, (manager) => work(sqlTables(manager)));
  }

  applyOnceEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (tables: RevocationTables, fresh: T[]) => Promise<void>,
  ): Promise<T[]> {
    return applyOnceEach(this.dataSource, REVOCATION_SCHEMA, events, (manager, fresh) =>
      work(sqlTables(manager), fresh),
    );
  }

  applyEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (tables: RevocationTables, unseen: T[]) => Promise<T[]>,
  ): Promise<T[]> {
    if (events.length === 0) return Promise.resolve([]);
    return this.dataSource.transaction(async (manager) => {
      const seen: { event_id: string }[] = await manager.query(
        'SELECT event_id::text FROM revocation.inbox WHERE event_id = ANY($1::uuid[])',
        [events.map((event) => event.id)],
      );
      const before = new Set(seen.map((row) => row.event_id.toLowerCase()));
      const unseen = events.filter((event) => !before.has(event.id.toLowerCase()));
      if (unseen.length === 0) return [];
      const applied = await work(sqlTables(manager), unseen);
      if (applied.length > 0) {
        await manager.query(
          `INSERT INTO revocation.inbox (event_id, type) SELECT * FROM unnest($1::uuid[], $2::text[])
           ON CONFLICT (event_id) DO NOTHING`,
          [applied.map((event) => event.id), applied.map((event) => event.type)],
        );
      }
      return applied;
    });
  }

  async ready(): Promise<boolean> {
    return this.dataSource.isInitialized && (await this.dataSource.query('SELECT 1')) !== undefined;
  }
}

function sqlTables(manager: EntityManager): RevocationTables {
  return {
    issuers: new SqlCrlIssuerStore(manager),
    rootIssuers: new SqlRootCrlIssuerStore(manager),
    ledger: new SqlRevokedCertificateStore(manager),
    revokedCas: new SqlRevokedCaStore(manager),
    crls: new SqlCrlStore(manager),
    outbox: new SqlCrlOutboxStore(manager),
  };
}
