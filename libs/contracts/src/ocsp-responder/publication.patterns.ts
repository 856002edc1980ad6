import { EventEnvelope } from '../common/event-envelope';
import { CrlPublishedPayload } from '../revocation/crl-published.event';

/**
 * Request/reply subjects answered by the ocsp-responder (queue group `ocsp-responder`), asked only
 * by issuance: the direct path that makes the public surface read-your-writes
 * (docs/architecture.md#read-your-writes). The events stay the durable truth; this only makes them early.
 */
export const ResponderPattern = {
  /** Apply these events of issuance now, and answer once they are stored (and, asked for, their CRLs are served). */
  Publish: 'ocsp-responder.publish',
  /**
   * Forget the `good` status these `certificate.issued` events published: issuance did not store
   * their certificates after all (a refusal or a failure of its transaction after the publish).
   */
  Withdraw: 'ocsp-responder.withdraw',
  /**
   * Asked by revocation only: a `crl.published` it has just recorded, early beside the stream, so
   * the served CRL does not wait behind the tenant's partition (a bulk revocation's thousands of
   * events; docs/architecture.md#bulk-revocation-direct-path). Applied as the stream's copy is.
   */
  CrlPublished: 'ocsp-responder.crl-published',
} as const;
export type ResponderPattern = (typeof ResponderPattern)[keyof typeof ResponderPattern];

/** How long issuance waits for the responder before it answers as unconfirmed. */
export const PUBLICATION_CONFIRM_MS = 2_000;
/** How long a CA's publication waits for its first CRLs (built by revocation, signed by issuance). */
export const CA_PUBLICATION_CONFIRM_MS = 8_000;
/** Events in one publish request: issuance's group commit stores at most 64 certificates at once. */
export const MAX_PUBLISHED_EVENTS = 256;

export interface PublishCommand {
  /** Envelopes exactly as recorded in issuance's outbox (ids included); each names its tenant. */
  events: EventEnvelope[];
  /** Also wait until the CRL of every CA these events make is served (CA events only). */
  awaitCrls?: boolean;
}

export interface PublishResult {
  /** How many events were applied (or already were). */
  applied: number;
  /**
   * Ids of `certificate.issued` events left out: their CA is not (yet) published on this
   * responder. Issuance answers their callers as unconfirmed; the other events stand.
   */
  refused: string[];
}

export interface WithdrawCommand {
  /** The `certificate.issued` envelopes published before, exactly as sent then. */
  events: EventEnvelope[];
}

export interface WithdrawResult {
  /** How many statuses were forgotten (0 for one already gone, revoked since, or delivered by the stream). */
  withdrawn: number;
}

export type ResponderApi = {
  [ResponderPattern.Publish]: [PublishCommand, PublishResult];
  [ResponderPattern.Withdraw]: [WithdrawCommand, WithdrawResult];
  [ResponderPattern.CrlPublished]: [CrlPublishedCommand, { applied: true }];
};

export interface CrlPublishedCommand {
  /** The envelope exactly as recorded in revocation's outbox. */
  event: EventEnvelope<CrlPublishedPayload>;
}
