import { createHash } from 'node:crypto';
import { Client } from 'pg';

/**
 * What an attack must leave unchanged, read straight from every service's schema (reading it over
 * the admin API would itself add audit rows): the certificates and their revocation, the
 * revocation ledger and the CRLs, the responder's statuses and served CRLs, and the audit chain.
 * Each table is reduced to a digest of its rows in a fixed order, plus its row count, so a
 * failing comparison names the table that changed.
 */
export type StoredState = Record<string, string>;

const QUERIES: Record<string, string> = {
  'issuance.certificates': `SELECT id, tenant_id, serial_number, revoked_at, revocation_reason_code
    FROM issuance.certificates ORDER BY id`,
  'revocation.revoked_certificates': `SELECT tenant_id, serial_number, reason_code
    FROM revocation.revoked_certificates ORDER BY tenant_id, serial_number`,
  'revocation.crls': `SELECT tenant_id, crl_number FROM revocation.crls ORDER BY tenant_id, crl_number`,
  'ocsp.certificate_status': `SELECT tenant_id, serial_number, revoked_at, reason_code
    FROM ocsp.certificate_status ORDER BY tenant_id, serial_number`,
  'ocsp.crls': `SELECT tenant_id, crl_number, sha256 FROM ocsp.crls ORDER BY tenant_id`,
  'gateway.audit_events': `SELECT count(*) AS n FROM gateway.audit_events`,
};

export async function readStoredState(
  databaseUrl: string,
  tables = Object.keys(QUERIES),
): Promise<StoredState> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const state: StoredState = {};
    for (const table of tables) {
      const { rows } = await client.query(QUERIES[table]);
      state[table] =
        `${rows.length} rows, ${createHash('sha256').update(JSON.stringify(rows)).digest('hex').slice(0, 16)}`;
    }
    return state;
  } finally {
    await client.end();
  }
}

/** Runs one query on the system's database (a check of a table the snapshot does not cover). */
export async function queryRows<T>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
