import { EventEnvelope } from '../common/event-envelope';
import { TenantUpdatedPayload } from '../gateway/tenant-updated.event';
import { CaInitializedPayload } from '../issuance/ca-initialized.event';
import { CaRevokedPayload } from '../issuance/ca-revoked.event';
import { IssuingCaAddedPayload } from '../issuance/issuing-ca-added.event';
import { OcspSignerCertifiedPayload } from '../issuance/ocsp-signer-certified.event';
import { RootRenewedPayload } from '../issuance/root-renewed.event';
import { ReplaceLeavesRequestedPayload } from '../issuance/replacement.dto';
import {
  CertificateHoldReleasedPayload,
  CertificateIssuedPayload,
  CertificateRevokedPayload,
} from '../issuance/certificate.events';
import { CrlPublishedPayload } from '../revocation/crl-published.event';
import { EventType } from './event-types';

/**
 * Event type → payload type, for every event a service records. A consumer's handlers are keyed
 * by these types and receive envelopes of the matching payload, so call sites need no casts; the
 * payload checkers (event-payload.parsers.ts) make the promise true at run time.
 */
export interface EventPayloads {
  [EventType.CaInitialized]: CaInitializedPayload;
  [EventType.CaRevoked]: CaRevokedPayload;
  [EventType.IssuingCaAdded]: IssuingCaAddedPayload;
  [EventType.RootRenewed]: RootRenewedPayload;
  [EventType.ReplaceLeavesRequested]: ReplaceLeavesRequestedPayload;
  [EventType.CertificateIssued]: CertificateIssuedPayload;
  [EventType.CertificateRevoked]: CertificateRevokedPayload;
  [EventType.CertificateHoldReleased]: CertificateHoldReleasedPayload;
  [EventType.CrlPublished]: CrlPublishedPayload;
  [EventType.OcspSignerCertified]: OcspSignerCertifiedPayload;
  [EventType.TenantUpdated]: TenantUpdatedPayload;
}

/** An event type that has a payload type. */
export type PayloadEventType = keyof EventPayloads;

/** The envelope of an event of type `K`. */
export type EventOf<K extends PayloadEventType> = EventEnvelope<EventPayloads[K]> & { type: K };
