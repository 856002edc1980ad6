import { EventEnvelope, EventType, WebhooksApi, WebhooksPattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';

/**
 * The webhooks context's early path (docs/architecture.md#webhooks-early-path): the
 * `certificate.issued` events of a committed batch go to a webhooks replica at once, so their
 * webhooks leave without waiting for the tenant's partition of the stream, which hands a consumer
 * one event at a time. Never awaited and never an error for the caller: the stream still brings
 * every event, and the webhooks inbox applies each once, whichever comes first. Only `issued` is
 * sent: it is the first event of its certificate, so arriving early cannot overtake an earlier one
 * of the same certificate (webhooks keep each certificate's order).
 */
export class WebhooksFeed {
  constructor(private readonly webhooks: RpcClient<WebhooksApi> | undefined) {}

  offer(events: readonly EventEnvelope[]): void {
    const issued = events.filter((event) => event.type === EventType.CertificateIssued);
    if (!this.webhooks || issued.length === 0) return;
    this.webhooks
      .send(WebhooksPattern.Issued, {
        events: issued as WebhooksApi[typeof WebhooksPattern.Issued][0]['events'],
      })
      .catch(() => undefined);
  }
}
