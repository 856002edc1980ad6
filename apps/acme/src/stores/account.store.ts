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

/** Prepared (prepared-statements.ts), with its columns named: no `*` in a prepared result. */
const ACCOUNT_COLUMNS = `id, tenant_id, jwk, thumbprint, status, contact, eab_key_id, created_at`;

/**
 * `acme.accounts` (RFC 8555 7.1.2), and the EAB key an account binds when it is created; every
 * lookup names the tenant.
 */
export class AccountStore {
  constructor(private readonly dataSource: DataSource) {}

  async findByThumbprint(tenantId: string, thumbprint: string): Promise<Account | undefined> {
    const [row] = await this.dataSource.query(
      prepared(`SELECT ${ACCOUNT_COLUMNS} FROM acme.accounts WHERE tenant_id = $1 AND thumbprint = $2`),
      [tenantId, thumbprint],
    );
    return row ? toAccount(row) : undefined;
  }

  async find(tenantId: string, id: string): Promise<Account | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await this.dataSource.query(
      prepared(`SELECT ${ACCOUNT_COLUMNS} FROM acme.accounts WHERE tenant_id = $1 AND id = $2`),
      [tenantId, id],
    );
    return row ? toAccount(row) : undefined;
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
