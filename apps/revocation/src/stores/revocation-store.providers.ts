import { Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CrlBuildLeaseStore, SqlCrlBuildLeaseStore } from './crl-build-lease.store';
import { CrlIssuerStore } from './crl-issuer.store';
import { CrlOutboxStore } from './crl-outbox.store';
import { CrlStore } from './crl.store';
import { RevocationDatabase, SqlRevocationDatabase } from './revocation-database.store';
import { RevokedCaStore } from './revoked-ca.store';
import { RevokedCertificateStore } from './revoked-certificate.store';
import { RootCrlIssuerStore } from './root-crl-issuer.store';

/** Every store of the revocation schema on Postgres, each under its abstract class (its injection token). */
export function revocationStoreProviders(dataSource: DataSource): Provider[] {
  const database = new SqlRevocationDatabase(dataSource);
  const { tables } = database;
  return [
    { provide: RevocationDatabase, useValue: database },
    { provide: CrlIssuerStore, useValue: tables.issuers },
    { provide: RootCrlIssuerStore, useValue: tables.rootIssuers },
    { provide: RevokedCertificateStore, useValue: tables.ledger },
    { provide: RevokedCaStore, useValue: tables.revokedCas },
    { provide: CrlStore, useValue: tables.crls },
    { provide: CrlOutboxStore, useValue: tables.outbox },
    { provide: CrlBuildLeaseStore, useValue: new SqlCrlBuildLeaseStore(dataSource.manager) },
  ];
}
