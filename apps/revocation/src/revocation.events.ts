import { EventType } from '@ca/contracts';
import { TypedEventHandlers, each } from '@ca/messaging';
import { Injectable } from '@nestjs/common';
import { CrlPublisher } from './crls/crl.publisher';
import { RootCrlPublisher } from './crls/root-crl.publisher';
import { RenewedRootLedger } from './ledger/renewed-root.ledger';
import { RevocationLedger } from './ledger/revocation.ledger';

/**
 * What the durable consumer `revocation` does with each event type: the fact goes into the ledger
 * once, then a new CRL of the CA it changed is requested. Publication is not awaited in the
 * handler: the stream moves on while the CRL is built, and a failed build is retried by the
 * scheduler, so one CA's CRL never holds up the others' events.
 */
@Injectable()
export class RevocationEvents {
  constructor(
    private readonly ledger: RevocationLedger,
    private readonly renewedRoots: RenewedRootLedger,
    private readonly publisher: CrlPublisher,
    private readonly rootPublisher: RootCrlPublisher,
  ) {}

  handlers(): TypedEventHandlers {
    const { ledger, renewedRoots, publisher, rootPublisher } = this;
    return {
      [EventType.CaInitialized]: each(async (e) => {
        void publisher.request(await ledger.registerIssuer(e));
        void rootPublisher.request(e.tenantId);
      }),
      [EventType.IssuingCaAdded]: each(async (e) => {
        // Its first CRL (empty) at once; the CA it replaced keeps its own (docs/api.md#add-an-issuing-ca).
        if (await ledger.registerAddedIssuer(e)) void publisher.request(e.payload.caId);
      }),
      [EventType.RootRenewed]: each(async (e) => {
        // The new root's first CRL (empty); the old root keeps its own (docs/api.md#renew-the-root).
        if (await renewedRoots.register(e)) void publisher.request(e.payload.caId);
      }),
      [EventType.CaRevoked]: each(async (e) => {
        const recorded = await ledger.recordCaRevocation(e);
        if (recorded?.rootCrl) void rootPublisher.request(e.tenantId);
        else if (recorded) void publisher.request(recorded.caId);
      }),
      // A run of revocations (a bulk revocation's) in one transaction; only a new entry changes
      // the CRL: a replayed or refused event must not have one signed.
      [EventType.CertificateRevoked]: async (events) => {
        for (const caId of await ledger.recordRevocations(events)) void publisher.request(caId);
      },
      [EventType.CertificateHoldReleased]: each(async (e) => {
        if (await ledger.releaseHold(e)) void publisher.request(e.payload.caId);
      }),
    };
  }
}
