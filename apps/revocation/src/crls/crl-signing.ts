import { createHash } from 'node:crypto';
import {
  CaError,
  CRL_ENTRY_DIFFERENCES_NAMED,
  CRL_VALIDITY_MS,
  CrlEntryDifference,
  CrlIssuer,
  CrlPublishedPayload,
  EventEnvelope,
  ErrorCode,
  IssuanceApi,
  IssuancePattern,
  crlEntryDifferences,
  lastSignedCrlNumber,
} from '@ca/contracts';
import { Injectable, Logger, Optional } from '@nestjs/common';
import { BlobStore, OutboxRelay, RpcClient } from '@ca/messaging';
import { CrlProfile, assembleCertificateList, backdatedStart, encodeTbsCertList } from '@ca/pki';
import { LedgerCorrection } from '../ledger/ledger-correction';
import { LedgerReconciliation } from '../ledger/ledger-reconciliation';
import { ResponderCrlFeed } from './responder-crl-feed';
import { RevocationDatabase, RevocationTables } from '../stores/revocation-database.store';

export { CRL_VALIDITY_MS };

const logger = new Logger('CrlSigning');

/** A signed CRL as its publisher stores it. */
export interface SignedCrl {
  der: Uint8Array;
  thisUpdate: Date;
  nextUpdate: Date;
}

/** The next CRL of one issuer of a tenant and how its publisher keeps its CRL numbers. */
export interface CrlToPublish extends Pick<CrlProfile, 'issuerCertificateDer' | 'crlNumber' | 'entries'> {
  tenantId: string;
  /** The leaf-signing CA whose CRL this is (docs/api.md#add-an-issuing-ca); absent for the root's. */
  caId?: string;
  /** Absent for a CA that signs leaves. */
  issuer?: CrlIssuer;
  /** Moves the issuer's next number from `crlNumber` to `next` (past one issuance signed before). */
  skipTo(next: bigint): Promise<void>;
  /**
   * Takes `crlNumber` (a conditional update) and stores what the publisher keeps, in the
   * transaction of `tables`; false when another replica took it.
   */
  store(tables: RevocationTables, crl: SignedCrl): Promise<boolean>;
  /** Corrects the entries from issuance's refusal (crlEntryDifferences), in the transaction of `tables`. */
  correct(tables: RevocationTables, differences: CrlEntryDifference[]): Promise<LedgerCorrection>;
}

/**
 * What both publishers (the `/crl` of each CA that signs or signed leaves, the root's `root.crl`)
 * share: issuance's signature over the hand-over blob, the signed CRL stored with its
 * `crl.published` event, and the corrections after a refusal.
 */
@Injectable()
export class CrlSigning {
  constructor(
    private readonly database: RevocationDatabase,
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly blobs: BlobStore,
    private readonly relay: OutboxRelay,
    /** After issuance refused a CRL of a CA that signs leaves: makes this CA's ledger match issuance's. */
    private readonly reconciliation: LedgerReconciliation,
    /** The stored CRL's announcement, early to the responder (besides the stream). */
    @Optional() private readonly responderFeed?: ResponderCrlFeed,
  ) {}

  /**
   * Builds the TBSCertList of `crl`, has issuance sign it (the CA key never comes here), stores it and its `crl.published` event
   * in one transaction and nudges the relay. Returns false when the number is gone (signed before or
   * taken by another replica): the publisher then builds again with a higher one.
   */
  async signAndPublish(crl: CrlToPublish): Promise<boolean> {
    const { issuance, blobs, relay } = this;
    const caId = crl.caId === undefined ? {} : { caId: crl.caId };
    const issuer = crl.issuer === undefined ? {} : { issuer: crl.issuer };
    // Backdated a minute, as certificates are: a relying party whose clock runs behind would
    // otherwise refuse a fresh CRL whose thisUpdate (RFC 5280 5.1.2.4) is in its future.
    const thisUpdate = backdatedStart(new Date());
    const nextUpdate = new Date(thisUpdate.getTime() + CRL_VALIDITY_MS);
    const tbs = encodeTbsCertList({
      issuerCertificateDer: crl.issuerCertificateDer,
      crlNumber: crl.crlNumber,
      thisUpdate,
      nextUpdate,
      entries: crl.entries,
    });
    const tbsBlobRef = await blobs.put(tbs);
    let signature: string;
    try {
      ({ signature } = await issuance
        .send(IssuancePattern.SignCrl, {
          tenantId: crl.tenantId,
          tbsBlobRef,
          // Binds the request to these bytes: issuance signs nothing else under this reference.
          tbsSha256: createHash('sha256').update(tbs).digest('hex'),
          ...caId,
          ...issuer,
        })
        .finally(() => blobs.delete(tbsBlobRef)));
    } catch (error) {
      const differences = crlEntryDifferences(error);
      if (differences.length > 0) return this.correctFromIssuance(crl, differences, error);
      // Issuance signed this number before, for a CRL never stored here (a crash between its
      // signature and our commit): move past it and build again at once (RFC 5280 5.2.3 allows gaps).
      const lastSigned = lastSignedCrlNumber(error);
      if (lastSigned === undefined) {
        // Refused for its entries, say: an entry issuance never recorded (a forged or replayed
        // event) would have every later CRL refused too. Reconciled, the next build can pass.
        const refused = error instanceof CaError && error.code === ErrorCode.Forbidden;
        if (
          refused &&
          crl.caId &&
          !crl.issuer &&
          (await this.reconciliation.reconcile(crl.tenantId, crl.caId))
        )
          return false;
        throw error;
      }
      if (lastSigned < crl.crlNumber) throw error;
      await crl.skipTo(lastSigned + 1n);
      return false;
    }
    const der = assembleCertificateList(tbs, Buffer.from(signature, 'base64'));
    const blobRef = await blobs.put(der);
    let announced: EventEnvelope<CrlPublishedPayload> | undefined;
    const stored = await this.database.transaction(async (tables) => {
      if (!(await crl.store(tables, { der, thisUpdate, nextUpdate }))) return false;
      announced = await tables.outbox.recordPublished({
        tenantId: crl.tenantId,
        ...caId,
        crlNumber: crl.crlNumber.toString(),
        thisUpdate: thisUpdate.toISOString(),
        nextUpdate: nextUpdate.toISOString(),
        blobRef,
        sha256: createHash('sha256').update(der).digest('hex'),
        ...issuer,
      });
      return true;
    });
    if (!stored) {
      await blobs.delete(blobRef);
      return false;
    }
    relay.nudge();
    if (announced) this.responderFeed?.offer(announced);
    return true;
  }

  /**
   * Issuance refused the CRL because its entries differ from issuance's ledger (an event forged,
   * replayed, lost or still on its way): the entries are corrected as issuance names them and the
   * CRL is built again at once (false), so one inconsistency costs one refused CRL, never a frozen
   * one. A refusal that changes nothing here is thrown: the scheduler retries later, no loop.
   */
  private async correctFromIssuance(
    crl: CrlToPublish,
    differences: CrlEntryDifference[],
    refusal: unknown,
  ): Promise<boolean> {
    // The refusal names at most CRL_ENTRY_DIFFERENCES_NAMED missing entries: when it named that
    // many, the ledger may lack far more, and the rest comes from issuance's list at once.
    const missingNamed = differences.filter((d) => d.kind === 'missing').length;
    const completed =
      missingNamed >= CRL_ENTRY_DIFFERENCES_NAMED && crl.caId && !crl.issuer
        ? await this.reconciliation.addMissing(crl.tenantId, crl.caId)
        : 0;
    const named = await this.database.transaction((tables) => crl.correct(tables, differences));
    const corrected = { ...named, added: named.added + completed };
    logger.warn(
      {
        tenantId: crl.tenantId,
        caId: crl.caId,
        issuer: crl.issuer,
        crlNumber: crl.crlNumber.toString(),
        ...corrected,
        reason: refusal instanceof Error ? refusal.message : String(refusal),
      },
      "CRL refused by issuance: its entries differ from issuance's ledger; entries corrected from it, building again",
    );
    if (corrected.removed + corrected.added === 0) throw refusal;
    return false;
  }
}
