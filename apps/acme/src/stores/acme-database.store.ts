import { RateLimitWindowStore, RateLimitWindowTable, SqlRateLimitWindowStore } from '@ca/persistence';
import { DataSource } from 'typeorm';
import { AcmeProfileStore, SqlAcmeProfileStore } from './acme-profile.store';
import { AccountStore } from './account.store';
import { EabKeyStore, SqlEabKeyStore } from './eab-key.store';
import { OrderStore } from './order.store';
import { SharedSpentNonces } from './spent-nonce.store';

/** acme's rate-limit windows: one count per key (`tenant:<id>`, `account:<id>`, …) and minute. */
export const ACME_RATE_LIMIT_WINDOWS: RateLimitWindowTable = {
  table: 'acme.rate_limit_windows',
  keyColumn: 'key',
};

/** The acme schema on Postgres: each table's store, and whether the database answers. */
export class AcmeDatabase {
  readonly accounts: AccountStore;
  /** Orders with their authorizations and challenges. */
  readonly orders: OrderStore;
  readonly eabKeys: EabKeyStore;
  readonly profiles: AcmeProfileStore;
  /** Spent nonces shared by the replicas (embedded mode keeps them in memory instead). */
  readonly spentNonces: SharedSpentNonces;
  readonly rateLimitWindows: RateLimitWindowStore;

  /** `onlyReplica`: this process is the only acme on the database (the embedded one). */
  constructor(
    private readonly dataSource: DataSource,
    options: { onlyReplica?: boolean } = {},
  ) {
    this.accounts = new AccountStore(dataSource, options);
    this.orders = new OrderStore(dataSource);
    this.eabKeys = new SqlEabKeyStore(dataSource);
    this.profiles = new SqlAcmeProfileStore(dataSource);
    this.spentNonces = new SharedSpentNonces(dataSource);
    this.rateLimitWindows = new SqlRateLimitWindowStore(dataSource, ACME_RATE_LIMIT_WINDOWS);
  }

  /** `/health/ready`. */
  async ready(): Promise<boolean> {
    return this.dataSource.isInitialized && (await this.dataSource.query('SELECT 1')) !== undefined;
  }
}
