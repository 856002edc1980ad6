import { Logger } from '@nestjs/common';
import { ROOT_CRL_ISSUER } from '@ca/contracts';
import { publishedReasonCode } from '@ca/pki';
import { correctRootEntries } from '../ledger/ledger-correction';
import { CrlPublishing, signAndPublishCrl } from './crl-signing';

interface RootIssuerRow {
  ca_certificate_der: Buffer;
  next_crl_number: string;
}

interface RevokedCaRow {
  serial_number: string;
  revocation_date: Date;
  reason_code: number;
}

/** A CRL number another replica (or a lost reply) used first: build again at most this often. */
const MAX_ATTEMPTS = 3;

/**
 * Builds, has signed by the tenant's root and publishes the root's CRL, `root.crl`
 * (docs/api.md#distribution-points): its entries are the revoked issuing CAs, so it is tiny and
 * changes only when an operator revokes one; it is re-signed at half its validity like `/crl`. The
 * CRLNumber sequence is the root's own (RFC 5280 5.2.3). Builds of a tenant run one after the
 * other here; two replicas racing for a number are settled by issuance, which signs each number
 * once, and by the conditional update below, which stores it once.
 */
export class RootCrlPublisher {
  private readonly logger = new Logger('RootCrlPublisher');
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly publishing: CrlPublishing) {}

  /** Resolves when a root CRL including everything recorded before the call is published. */
  request(tenantId: string): Promise<void> {
    const next = (this.chains.get(tenantId) ?? Promise.resolve())
      .then(() => this.publish(tenantId))
      .catch((err: unknown) =>
        this.logger.warn({ err, tenantId }, 'root CRL publication failed; the scheduler retries'),
      )
      .finally(() => {
        if (this.chains.get(tenantId) === next) this.chains.delete(tenantId);
      });
    this.chains.set(tenantId, next);
    return next;
  }

  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  private async publish(tenantId: string): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (await this.publishOnce(tenantId)) return;
    }
    throw new Error(`no free root CRL number after ${MAX_ATTEMPTS} attempts`);
  }

  /** Returns false when the number was taken elsewhere (then the next attempt uses a higher one). */
  private async publishOnce(tenantId: string): Promise<boolean> {
    const issuers: RootIssuerRow[] = await this.publishing.dataSource.query(
      'SELECT ca_certificate_der, next_crl_number FROM revocation.root_crl_issuers WHERE tenant_id = $1',
      [tenantId],
    );
    if (issuers.length === 0) return true;
    const crlNumber = BigInt(issuers[0].next_crl_number);
    const revoked: RevokedCaRow[] = await this.publishing.dataSource.query(
      'SELECT serial_number, revocation_date, reason_code FROM revocation.revoked_cas WHERE tenant_id = $1',
      [tenantId],
    );
    return signAndPublishCrl(this.publishing, {
      tenantId,
      issuerCertificateDer: new Uint8Array(issuers[0].ca_certificate_der),
      crlNumber,
      entries: revoked.map((row) => ({
        serialNumberHex: row.serial_number,
        revocationDate: row.revocation_date,
        reasonCode: publishedReasonCode(row.reason_code) ?? 0,
      })),
      issuer: ROOT_CRL_ISSUER,
      issuerRow: { table: 'revocation.root_crl_issuers', key: 'tenant_id', id: tenantId },
      store: async (manager, { nextUpdate }) => {
        const updated: [unknown[], number] = await manager.query(
          `UPDATE revocation.root_crl_issuers SET next_crl_number = next_crl_number + 1, next_update = $3, entry_count = $4
            WHERE tenant_id = $1 AND next_crl_number = $2`,
          [tenantId, crlNumber.toString(), nextUpdate, revoked.length],
        );
        return updated[1] === 1;
      },
      correct: (manager, differences) => correctRootEntries(manager, tenantId, differences),
    });
  }
}
