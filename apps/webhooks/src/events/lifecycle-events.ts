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
import { applyOnceEach } from '@ca/messaging';
import { DataSource, EntityManager } from 'typeorm';
import { WEBHOOKS_SCHEMA } from '../webhooks.schema';
import { OutgoingEvent, enqueue } from './enqueue';

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

interface CertificateRow {
  certificate_id: string;
  tenant_id: string;
  serial_number: string;
  common_name: string | null;
  client_id: string | null;
  subject_alternative_names: string[];
  not_after: Date | string;
  revoked_at: Date | string | null;
}

/** The `data` of a certificate event, from the read model (fields an older event lacked left out). */
export function certificateData(row: CertificateRow, status: string): Record<string, unknown> {
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
    private readonly dataSource: DataSource,
    private readonly onQueued: () => void,
  ) {}

  async issued(events: readonly EventEnvelope<CertificateIssuedPayload>[]): Promise<void> {
    await this.apply(events, async (event, manager) => {
      const p = event.payload;
      const [row] = (await manager.query(
        `INSERT INTO webhooks.certificates
           (certificate_id, tenant_id, serial_number, common_name, client_id, subject_alternative_names, not_after)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (certificate_id) DO UPDATE SET not_after = EXCLUDED.not_after
         RETURNING *`,
        [
          p.certificateId,
          p.tenantId,
          p.serialNumber,
          p.commonName ?? null,
          p.clientId ?? null,
          p.subjectAlternativeNames ?? [],
          p.notAfter,
        ],
      )) as CertificateRow[];
      if (p.renewedFrom) {
        // A renewed certificate gets no more expiring events (its successor does).
        await manager.query(
          'UPDATE webhooks.certificates SET renewed_by = $2 WHERE certificate_id = $1 AND tenant_id = $3',
          [p.renewedFrom, p.certificateId, p.tenantId],
        );
      }
      return [
        certificateEvent(p.renewedFrom ? 'certificate.renewed' : 'certificate.issued', event, {
          ...certificateData(row, 'Active'),
          ...(p.renewedFrom ? { renewedFrom: p.renewedFrom } : {}),
        }),
      ];
    });
  }

  async revoked(events: readonly EventEnvelope<CertificateRevokedPayload>[]): Promise<void> {
    await this.apply(events, async (event, manager) => {
      const p = event.payload;
      const [rows] = (await manager.query(
        `UPDATE webhooks.certificates SET revoked_at = $3
         WHERE certificate_id = $1 AND tenant_id = $2 RETURNING *`,
        [p.certificateId, p.tenantId, p.revokedAt],
      )) as [CertificateRow[], number];
      // A certificate issued before this context watched: what the event itself says.
      const data = rows[0]
        ? certificateData(rows[0], 'Revoked')
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
    await this.apply(events, async (event, manager) => {
      const p = event.payload;
      await manager.query(
        'UPDATE webhooks.certificates SET revoked_at = NULL WHERE certificate_id = $1 AND tenant_id = $2',
        [p.certificateId, p.tenantId],
      );
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

  /**
   * A run of events in one transaction with their inbox entries (one commit per run, not per
   * event: a burst of issuances reaches the receivers sooner); each event's effect once.
   */
  private async apply<E extends EventEnvelope>(
    events: readonly E[],
    effect: (event: E, manager: EntityManager) => Promise<OutgoingEvent[]>,
  ): Promise<void> {
    let queued = 0;
    await applyOnceEach(this.dataSource, WEBHOOKS_SCHEMA, events, async (manager, fresh) => {
      for (const event of fresh)
        for (const outgoing of await effect(event, manager)) queued += await enqueue(manager, outgoing);
    });
    if (queued > 0) this.onQueued();
  }
}
