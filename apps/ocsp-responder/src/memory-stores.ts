import { CrlToServe, ServedCrlStore } from './crls/served-crl.store';
import { RequestedSignerStore } from './signers/requested-signer.store';

/*
 * Stores of the responder's schema in memory, for unit tests: each keeps its rows in maps and
 * answers as its SQL twin does. The certificate statuses and signers are not here: the statuses'
 * sequence rules are the SQL itself, tested on the database (certificate-status.projection.int-spec.ts),
 * and so are the signers (ocsp-signer.keeper.int-spec.ts).
 */

export class MemoryRequestedSignerStore extends RequestedSignerStore {
  /** By key hash: the tenant and when it was asked for. */
  readonly rows = new Map<string, { tenantId: string; requestedAt: Date }>();

  async record(publicKeySha256: string, tenantId: string): Promise<void> {
    if (!this.rows.has(publicKeySha256))
      this.rows.set(publicKeySha256, { tenantId, requestedAt: new Date() });
  }

  async wasRequested(publicKeySha256: string, tenantId: string): Promise<boolean> {
    return this.rows.get(publicKeySha256)?.tenantId.toLowerCase() === tenantId.toLowerCase();
  }

  async forgetOld(): Promise<void> {
    const cutoff = Date.now() - 40 * 24 * 60 * 60_000;
    for (const [key, row] of this.rows) if (row.requestedAt.getTime() < cutoff) this.rows.delete(key);
  }
}

export class MemoryServedCrlStore extends ServedCrlStore {
  /** `table:owner` of each CRL served, with its thisUpdate. */
  readonly served = new Map<string, Date>();

  async isServed(crl: CrlToServe): Promise<boolean> {
    return this.served.has(`${crl.table}:${crl.owner.toLowerCase()}`);
  }

  async ages(): Promise<{ tenantId: string; seconds: number }[]> {
    return [...this.served]
      .filter(([key]) => key.startsWith('ocsp.crls:'))
      .map(([key, thisUpdate]) => ({
        tenantId: key.slice('ocsp.crls:'.length),
        seconds: (Date.now() - thisUpdate.getTime()) / 1000,
      }));
  }
}
