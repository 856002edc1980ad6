import { CrlPublishedPayload, EventEnvelope, ResponderApi, ResponderPattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';

/**
 * A CRL just stored goes to a responder replica at once, beside the stream
 * (docs/architecture.md#bulk-revocation-direct-path): the stream hands the responder a tenant's
 * events one at a time, so during a bulk revocation its `crl.published` waited behind thousands of
 * `certificate.revoked` copies that change nothing there. Never awaited and never an error: the
 * stream still brings the event, and the responder's inbox applies it once, whichever comes first.
 */
export class ResponderCrlFeed {
  constructor(private readonly responder: RpcClient<ResponderApi> | undefined) {}

  offer(event: EventEnvelope<CrlPublishedPayload>): void {
    this.responder?.send(ResponderPattern.CrlPublished, { event }).catch(() => undefined);
  }
}
