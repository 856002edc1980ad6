import type { DataSource } from 'typeorm';

/** A CRL a CA event makes, by the table that serves it and its owner (tenant or CA id). */
export interface CrlToServe {
  table: 'ocsp.crls' | 'ocsp.root_crls' | 'ocsp.ca_crls';
  key: 'tenant_id' | 'ca_id';
  owner: string;
}

/** The CRLs being served, across tenants: whether one is, and how old each tenant's is. */
export abstract class ServedCrlStore {
  /** Whether this CRL is served (by every replica: the table is shared). */
  abstract isServed(crl: CrlToServe): Promise<boolean>;
  /** Seconds since thisUpdate of the CRL each tenant's CA that signs leaves is served with. */
  abstract ages(): Promise<{ tenantId: string; seconds: number }[]>;
}

export class SqlServedCrlStore extends ServedCrlStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async isServed(crl: CrlToServe): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM ${crl.table} WHERE ${crl.key} = $1`, [
      crl.owner.toLowerCase(),
    ]);
    return rows.length > 0;
  }

  async ages(): Promise<{ tenantId: string; seconds: number }[]> {
    const rows: { tenant_id: string; age: string }[] = await this.dataSource.query(
      'SELECT tenant_id, extract(epoch FROM now() - this_update) AS age FROM ocsp.crls',
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, seconds: Number(r.age) }));
  }
}
