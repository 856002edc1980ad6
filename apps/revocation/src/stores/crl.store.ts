import { EntityManager } from 'typeorm';

/** A signed CRL of a CA that signs (or signed) leaves, as it is kept. */
export interface StoredCrl {
  tenantId: string;
  caId: string;
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
  entryCount: number;
  der: Uint8Array;
}

/** `revocation.crls`: the newest signed CRLs of each CA (the scheduler compares the newest with the ledger). */
export abstract class CrlStore {
  /** Keeps `crl` and drops the CA's CRLs older than the two before it. */
  abstract add(crl: StoredCrl): Promise<void>;
}

export class SqlCrlStore extends CrlStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async add({
    tenantId,
    caId,
    crlNumber,
    thisUpdate,
    nextUpdate,
    entryCount,
    der,
  }: StoredCrl): Promise<void> {
    await this.db.query(
      `INSERT INTO revocation.crls (ca_id, crl_number, this_update, next_update, entry_count, der, tenant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [caId, crlNumber.toString(), thisUpdate, nextUpdate, entryCount, Buffer.from(der), tenantId],
    );
    await this.db.query(`DELETE FROM revocation.crls WHERE ca_id = $1 AND crl_number < $2`, [
      caId,
      (crlNumber - 2n).toString(),
    ]);
  }
}
