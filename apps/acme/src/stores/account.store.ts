import { randomUUID } from 'node:crypto';
import { JWK } from 'jose';
import { DataSource } from 'typeorm';
import { prepared } from '@ca/persistence';
import { isUuid } from '@ca/contracts';

export type AccountStatus = 'valid' | 'deactivated' | 'revoked';

export interface Account {
  id: string;
  tenantId: string;
  jwk: JWK;
  thumbprint: string;
  status: AccountStatus;
  contact: string[];
  eabKeyId: string;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- rows as the driver returns them */
const toAccount = (r: any): Account => ({
  id: r.id,
  tenantId: r.tenant_id,
  jwk: r.jwk,
  thumbprint: r.thumbprint,
  status: r.status,
  contact: r.contact,
  eabKeyId: r.eab_key_id,
});
/* eslint-enable @typescript-eslint/no-explicit-any */

const copyOf = (account: Account): Account => ({ ...account, contact: [...account.contact] });
const keyOf = (tenantId: string, id: string) => `${tenantId} ${id}`;

/** Prepared (prepared-statements.ts), with its columns named: no `*` in a prepared result. */
const ACCOUNT_COLUMNS = `id, tenant_id, jwk, thumbprint, status, contact, eab_key_id, created_at`;

/** Accounts kept in memory by the only replica, at most (the oldest read first out). */
const REMEMBERED_ACCOUNTS = 10_000;

/**
 * `acme.accounts` (RFC 8555 7.1.2), and the EAB key an account binds when it is created; every
 * lookup names the tenant.
 *
 * Every signed request reads its account, so that a deactivated account is refused at once by
 * every replica (RFC 8555 7.3.6). The only replica (the embedded database is one process's alone)
 * is the only writer too: it keeps the accounts it read and forgets one when it changes it.
 */
export class AccountStore {
  private readonly remembered = new Map<string, Account>();
  /** Bumped by every change: a read that began before one is not remembered. */
  private changes = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: { onlyReplica?: boolean } = {},
  ) {}

  async findByThumbprint(tenantId: string, thumbprint: string): Promise<Account | undefined> {
    const [row] = await this.dataSource.query(
      prepared(`SELECT ${ACCOUNT_COLUMNS} FROM acme.accounts WHERE tenant_id = $1 AND thumbprint = $2`),
      [tenantId, thumbprint],
    );
    return row ? toAccount(row) : undefined;
  }

  async find(tenantId: string, id: string): Promise<Account | undefined> {
    if (!isUuid(id)) return undefined;
    const key = keyOf(tenantId, id);
    const known = this.remembered.get(key);
    if (known) return copyOf(known); // callers change what they get, then update()
    const changes = this.changes;
    const [row] = await this.dataSource.query(
      prepared(`SELECT ${ACCOUNT_COLUMNS} FROM acme.accounts WHERE tenant_id = $1 AND id = $2`),
      [tenantId, id],
    );
    if (!row) return undefined;
    const account = toAccount(row);
    if (this.options.onlyReplica && changes === this.changes) {
      if (this.remembered.size >= REMEMBERED_ACCOUNTS)
        this.remembered.delete(this.remembered.keys().next().value!);
      this.remembered.set(key, copyOf(account));
    }
    return account;
  }

  /**
   * Creates the account and binds the EAB key to it in one transaction; false when the key was
   * bound or disabled meanwhile (RFC 8555 7.3.4: one account per key).
   */
  async createBound(account: Omit<Account, 'id' | 'status'>): Promise<Account | undefined> {
    return this.dataSource.transaction(async (tx) => {
      const id = randomUUID();
      const [rows] = (await tx.query(
        prepared(`UPDATE acme.eab_keys SET bound_account_id = $1
         WHERE key_id = $2 AND tenant_id = $3 AND bound_account_id IS NULL AND disabled_at IS NULL
         RETURNING key_id`),
        [id, account.eabKeyId, account.tenantId],
      )) as [unknown[], number];
      if (rows.length !== 1) return undefined;
      const [row] = await tx.query(
        prepared(`INSERT INTO acme.accounts (id, tenant_id, jwk, thumbprint, status, contact, eab_key_id)
         VALUES ($1, $2, $3, $4, 'valid', $5, $6) RETURNING ${ACCOUNT_COLUMNS}`),
        [
          id,
          account.tenantId,
          account.jwk,
          account.thumbprint,
          JSON.stringify(account.contact),
          account.eabKeyId,
        ],
      );
      return toAccount(row);
    });
  }

  async update(account: Account): Promise<void> {
    try {
      await this.write(account);
    } finally {
      // Read again next time, once the change is in (or failed).
      this.changes++;
      this.remembered.delete(keyOf(account.tenantId, account.id));
    }
  }

  private async write(account: Account): Promise<void> {
    await this.dataSource.query(
      prepared(
        'UPDATE acme.accounts SET status = $3, contact = $4, jwk = $5, thumbprint = $6 WHERE tenant_id = $1 AND id = $2',
      ),
      [
        account.tenantId,
        account.id,
        account.status,
        JSON.stringify(account.contact),
        account.jwk,
        account.thumbprint,
      ],
    );
  }
}
