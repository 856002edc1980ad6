import { DynamicModule, Module } from '@nestjs/common';
import { IssuanceApi, ResponderApi } from '@ca/contracts';
import { BlobStore, OutboxRelay, RpcClient } from '@ca/messaging';
import type { DataSource } from 'typeorm';
import { CrlBlobSweeper } from './crls/crl-blob.sweeper';
import { CrlBuildLease } from './crls/crl-build.lease';
import { CrlEntriesCache } from './crls/crl-entries.cache';
import { CrlRefreshScheduler } from './crls/crl-refresh.scheduler';
import { CrlSigning } from './crls/crl-signing';
import { CrlPublisher } from './crls/crl.publisher';
import { ResponderCrlFeed } from './crls/responder-crl-feed';
import { RootCrlPublisher } from './crls/root-crl.publisher';
import { LedgerReconciliation } from './ledger/ledger-reconciliation';
import { RenewedRootLedger } from './ledger/renewed-root.ledger';
import { RevocationLedger } from './ledger/revocation.ledger';
import { DirectRevocationsController } from './direct/direct-revocations.controller';
import { RevocationEvents } from './revocation.events';
import { revocationStoreProviders } from './stores/revocation-store.providers';

export interface RevocationDependencies {
  /** The `revocation` schema, migrated. */
  dataSource: DataSource;
  /** Requests to issuance: `issuance.crl.sign`, `issuance.crl.revocations`. */
  issuance: RpcClient<IssuanceApi>;
  /** Hand-over of TBSCertLists and signed CRLs. */
  blobs: BlobStore;
  /** Relays `revocation.outbox` to the stream; nudged after each CRL. */
  relay: OutboxRelay;
  /** Each stored CRL's announcement, early to the responder (`ocsp-responder.crl-published`). */
  responder?: RpcClient<ResponderApi>;
}

/**
 * The revocation context: the ledger of revocations (fed by events), the CRL of every CA that
 * signs or signed leaves and each tenant's root CRL, their refresh and the clean-up of superseded
 * CRL blobs. Every table is reached through a store (`stores/`). Its one request/reply subject is
 * issuance's direct path of bulk revocations (docs/architecture.md#bulk-revocation-direct-path).
 */
@Module({})
export class RevocationModule {
  static register(deps: RevocationDependencies): DynamicModule {
    return {
      module: RevocationModule,
      controllers: [DirectRevocationsController],
      providers: [
        ...revocationStoreProviders(deps.dataSource),
        { provide: RpcClient, useValue: deps.issuance },
        { provide: BlobStore, useValue: deps.blobs },
        { provide: OutboxRelay, useValue: deps.relay },
        { provide: ResponderCrlFeed, useValue: new ResponderCrlFeed(deps.responder) },
        RevocationLedger,
        RenewedRootLedger,
        LedgerReconciliation,
        CrlEntriesCache,
        CrlBuildLease,
        CrlSigning,
        CrlPublisher,
        RootCrlPublisher,
        CrlRefreshScheduler,
        CrlBlobSweeper,
        RevocationEvents,
      ],
    };
  }
}
