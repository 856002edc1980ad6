import {
  CaRevokedPayload,
  CertificateHoldReleasedPayload,
  CertificateIssuedPayload,
  CertificateRevokedPayload,
  CrlPublishedPayload,
  EventEnvelope,
  IssuingCaAddedPayload,
  ReplaceLeavesRequestedPayload,
} from '@ca/contracts';
import { WatchedCertificate } from '../stores/watched-certificate.store';
import { WebhooksDatabase, WebhooksTables } from '../stores/webhooks-database.store';
import { OutgoingEvent } from './outgoing-event';

// The CRLReason names of RFC 5280 5.3.1, as relying parties and openssl know them (the admin
// API's reasonCode values are the same reasons spelled in PascalCase).
const REASON_NAMES = new Map<number, string>([
  [0, 'unspecified'],
  [1, 'keyCompromise'],
  [2, 'cACompromise'],
  [3, 'affiliationChanged'],
  [4, 'superseded'],
  [5, 'cessationOfOperation'],
  [6, 'certificateHold'],
  [8, 'removeFromCRL'],
  [9, 'privilegeWithdrawn'],
  [10, 'aACompromise'],
]);

/** The reason's RFC 5280 name (never the free text, which stays in issuance); `unspecified` for an unknown number. */
export function reasonName(code: number): string {
  return REASON_NAMES.get(code) ?? 'unspecified';
}

/** The `data` of a certificate event, from the read model (fields an older event lacked left out). */
export function certificateData(row: WatchedCertificate, status: string): Record<string, unknown> {
  return {
    tenantId: row.tenant_id,
    certificateId: row.certificate_id,
    serialNumber: row.serial_number,
    ...(row.common_name === null ? {} : { commonName: row.common_name }),
    ...(row.client_id === null ? {} : { clientId: row.client_id }),
    subjectAlternativeNames: row.subject_alternative_names,
    notAfter: new Date(row.not_after).toISOString(),
    status,
  };
}

/** A certificate's webhook event, ordered by its certificate, at the time the event happened. */
function certificateEvent(
  type: string,
  event: EventEnvelope<{ tenantId: string; certificateId: string }>,
  data: Record<string, unknown>,
): OutgoingEvent {
  return {
    tenantId: event.payload.tenantId,
    type,
    orderKey: event.payload.certificateId,
    timestamp: event.occurredAt,
    data,
  };
}

interface Announced<P> {
  /** Events of one key are delivered in their order. */
  orderKey: (payload: P) => string;
  /** `data` beyond `tenantId`. */
  data: (payload: P) => Record<string, unknown>;
}
const announced = <P>(spec: Announced<P>) => spec;

/** The durable events announced as they are: webhook type (the same name) → order key and `data`. */
export const ANNOUNCED = {
  'ca.issuing-added': announced<IssuingCaAddedPayload>({
    orderKey: (p) => `ca:${p.caId}`,
    data: (p) => ({
      caId: p.caId,
      issuerCaId: p.issuerCaId,
      previousCaId: p.previousCaId,
      notBefore: p.notBefore,
      notAfter: p.notAfter,
    }),
  }),
  'ca.revoked': announced<CaRevokedPayload>({
    orderKey: (p) => `ca:${p.caId}`,
    data: (p) => ({
      caId: p.caId,
      issuerCaId: p.issuerCaId,
      serialNumber: p.serialNumber,
      revokedAt: p.revokedAt,
      reasonCode: reasonName(p.reasonCode),
    }),
  }),
  'ca.replace-leaves-requested': announced<ReplaceLeavesRequestedPayload>({
    orderKey: (p) => `ca:${p.caId}`,
    data: (p) => ({ caId: p.caId, marked: p.marked, requestedAt: p.requestedAt }),
  }),
  'crl.published': announced<CrlPublishedPayload>({
    orderKey: (p) => `crl:${p.caId ?? p.issuer ?? 'leaves'}`,
    data: (p) => ({
      ...(p.caId ? { caId: p.caId } : {}),
      crl: p.issuer === 'root' ? 'root' : 'issuing',
      crlNumber: p.crlNumber,
      thisUpdate: p.thisUpdate,
      nextUpdate: p.nextUpdate,
    }),
  }),
} satisfies Record<string, Announced<never>>;
type AnnouncedType = keyof typeof ANNOUNCED;
type AnnouncedPayload<K extends AnnouncedType> = Parameters<(typeof ANNOUNCED)[K]['data']>[0];

/**
 * The durable consumer's effects: each lifecycle event updates the read model of watched
 * certificates and queues one message per interested subscription, in one transaction with the
 * inbox entry (applied once per event, whatever the redeliveries).
 */
export class LifecycleEvents {
  constructor(
    private readonly database: WebhooksDatabase,
    private readonly onQueued: () => void,
  ) {}

  async issued(events: readonly EventEnvelope<CertificateIssuedPayload>[]): Promise<void> {
    await this.applyRun(events, async (fresh, { certificates }) => {
      const rows = await certificates.issuedMany(fresh.map((event) => event.payload));
      const outgoing: OutgoingEvent[] = [];
      for (const [i, event] of fresh.entries()) {
        const p = event.payload;
        // A renewed certificate gets no more expiring events (its successor does).
        if (p.renewedFrom) await certificates.renewed(p.tenantId, p.renewedFrom, p.certificateId);
        outgoing.push(
          certificateEvent(p.renewedFrom ? 'certificate.renewed' : 'certificate.issued', event, {
            ...certificateData(rows[i], 'Active'),
            ...(p.renewedFrom ? { renewedFrom: p.renewedFrom } : {}),
          }),
        );
      }
      return outgoing;
    });
  }

  async revoked(events: readonly EventEnvelope<CertificateRevokedPayload>[]): Promise<void> {
    await this.apply(events, async (event, { certificates }) => {
      const p = event.payload;
      const row = await certificates.revoked(p.tenantId, p.certificateId, p.revokedAt);
      // A certificate issued before this context watched: what the event itself says.
      const data = row
        ? certificateData(row, 'Revoked')
        : {
            tenantId: p.tenantId,
            certificateId: p.certificateId,
            serialNumber: p.serialNumber,
            status: 'Revoked',
          };
      return [
        certificateEvent('certificate.revoked', event, {
          ...data,
          revokedAt: p.revokedAt,
          reasonCode: reasonName(p.reasonCode),
        }),
      ];
    });
  }

  /** A released hold makes the certificate Active again: watched for expiry again. No webhook type. */
  async holdReleased(events: readonly EventEnvelope<CertificateHoldReleasedPayload>[]): Promise<void> {
    await this.apply(events, async (event, { certificates }) => {
      await certificates.holdReleased(event.payload.tenantId, event.payload.certificateId);
      return [];
    });
  }

  /**
   * Events that announce a CA or CRL change as it is: no read model to update, the webhook's
   * `data` the payload's public fields (never a certificate body, a `…By` principal or a reason text).
   */
  async announce<K extends AnnouncedType>(
    type: K,
    events: readonly EventEnvelope<AnnouncedPayload<K>>[],
  ): Promise<void> {
    const { orderKey, data } = ANNOUNCED[type] as unknown as Announced<AnnouncedPayload<K>>;
    await this.apply(events, async (event) => [
      {
        tenantId: event.payload.tenantId,
        type,
        orderKey: orderKey(event.payload),
        timestamp: event.occurredAt,
        data: { tenantId: event.payload.tenantId, ...data(event.payload) },
      },
    ]);
  }

  /** applyRun with an effect per event, in the run's order. */
  private async apply<E extends EventEnvelope>(
    events: readonly E[],
    effect: (event: E, tables: WebhooksTables) => Promise<OutgoingEvent[]>,
  ): Promise<void> {
    await this.applyRun(events, async (fresh, tables) => {
      const outgoing: OutgoingEvent[] = [];
      for (const event of fresh) outgoing.push(...(await effect(event, tables)));
      return outgoing;
    });
  }

  /**
   * A run of events in one transaction with their inbox entries (one commit per run, not per
   * event: a burst of issuances reaches the receivers sooner); each event's effect once, and the
   * run's messages queued in one statement, in the events' order.
   */
  private async applyRun<E extends EventEnvelope>(
    events: readonly E[],
    effect: (fresh: E[], tables: WebhooksTables) => Promise<OutgoingEvent[]>,
  ): Promise<void> {
    let queued = 0;
    await this.database.applyOnceEach(events, async (tables, fresh) => {
      queued = await tables.messages.enqueueAll(await effect(fresh, tables));
    });
    if (queued > 0) this.onQueued();
  }
}
