import { Injectable, Logger } from '@nestjs/common';
import { ROOT_CRL_ISSUER } from '@ca/contracts';
import { publishedReasonCode } from '@ca/pki';
import { correctRootEntries } from '../ledger/ledger-correction';
import { RevokedCaStore } from '../stores/revoked-ca.store';
import { RootCrlIssuerStore } from '../stores/root-crl-issuer.store';
import { CrlSigning } from './crl-signing';

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
@Injectable()
export class RootCrlPublisher {
  private readonly logger = new Logger('RootCrlPublisher');
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly signing: CrlSigning,
    private readonly rootIssuers: RootCrlIssuerStore,
    private readonly revokedCas: RevokedCaStore,
  ) {}

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
    const issuer = await this.rootIssuers.forBuild(tenantId);
    if (!issuer) return true;
    const crlNumber = issuer.nextCrlNumber;
    const revoked = await this.revokedCas.entriesOf(tenantId);
    return this.signing.signAndPublish({
      tenantId,
      issuerCertificateDer: new Uint8Array(issuer.certificateDer),
      crlNumber,
      entries: revoked.map((entry) => ({
        serialNumberHex: entry.serialNumber,
        revocationDate: entry.revocationDate,
        reasonCode: publishedReasonCode(entry.reasonCode) ?? 0,
      })),
      issuer: ROOT_CRL_ISSUER,
      skipTo: (next) => this.rootIssuers.skipTo(tenantId, crlNumber, next),
      store: ({ rootIssuers }, { nextUpdate }) =>
        rootIssuers.takeNumber(tenantId, crlNumber, nextUpdate, revoked.length),
      correct: (tables, differences) => correctRootEntries(tables, tenantId, differences),
    });
  }
}
