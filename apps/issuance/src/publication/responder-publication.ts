import { Logger } from '@nestjs/common';
import {
  CA_PUBLICATION_CONFIRM_MS,
  CaError,
  ErrorCode,
  EventEnvelope,
  EventType,
  PUBLICATION_CONFIRM_MS,
  ResponderApi,
  ResponderPattern,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { publicationMetrics } from '@ca/observability';
import { OutboxStore } from './outbox.store';

/** What a caller gets when its issuance could not be confirmed: nothing was handed out. */
export const unconfirmed = () =>
  new CaError(
    ErrorCode.ServiceUnavailable,
    'The distribution side (OCSP, CRL) could not confirm in time; nothing was handed out. Retry shortly.',
  );

export type PublicationKind = 'certificates' | 'revocation' | 'ca';

/** The CA events a CA change records; published, with their first CRLs, before it answers. */
const CA_EVENT_TYPES = [
  EventType.CaInitialized,
  EventType.IssuingCaAdded,
  EventType.RootRenewed,
  EventType.CaRevoked,
];

/**
 * Issuance's side of read-your-writes (docs/architecture.md#read-your-writes): the events a
 * command has just recorded go to the responder by request/reply, and the command answers only
 * once a replica has stored them in the shared `ocsp` schema (as Boulder records a certificate's
 * status before handing the certificate out). The outbox still publishes every event: it is the
 * durable truth; this path only makes it early. Without an answer within PUBLICATION_CONFIRM_MS
 * the publication is unconfirmed: an issuance then hands nothing out (503), a revocation says
 * `"published": false`.
 */
export class ResponderPublication {
  private readonly logger = new Logger('ResponderPublication');

  constructor(
    private readonly responder: RpcClient<ResponderApi> | undefined,
    private readonly outbox: OutboxStore,
  ) {}

  /**
   * Resolves once the responder has stored `events`, with the ids of those it left out (issues
   * under a CA it does not hold yet); throws SERVICE_UNAVAILABLE when no replica answered in time.
   */
  async confirm(events: EventEnvelope[], kind: PublicationKind): Promise<ReadonlySet<string>> {
    if (events.length === 0) return new Set();
    let refused: ReadonlySet<string>;
    try {
      if (!this.responder) throw new Error('no responder client');
      const answer = await this.responder.send(
        ResponderPattern.Publish,
        { events },
        { timeoutMs: PUBLICATION_CONFIRM_MS },
      );
      refused = new Set(Array.isArray(answer?.refused) ? answer.refused : []);
    } catch (error) {
      publicationMetrics.publicationsTotal.inc({ kind, outcome: 'unconfirmed' }, events.length);
      this.logger.warn(
        { err: error, kind, events: events.length, tenantId: events[0].tenantId },
        'the distribution side did not confirm in time',
      );
      throw unconfirmed();
    }
    publicationMetrics.publicationsTotal.inc({ kind, outcome: 'confirmed' }, events.length - refused.size);
    if (refused.size > 0) {
      publicationMetrics.publicationsTotal.inc({ kind, outcome: 'unconfirmed' }, refused.size);
      this.logger.warn({ kind, refused: [...refused] }, 'the responder does not publish their CA yet');
    }
    return refused;
  }

  /** confirm, as a flag: whether the responder stored them (a revocation is recorded either way). */
  async published(events: EventEnvelope[], kind: PublicationKind): Promise<boolean> {
    try {
      return (await this.confirm(events, kind)).size === 0;
    } catch {
      return false;
    }
  }

  /**
   * After `confirm`, the transaction refused or failed for these `certificate.issued` events: the
   * responder forgets their `good` status, so a serial that was never issued answers `unknown`
   * (RFC 6960 2.2), on the same direct path. Never throws: without an answer in time it is logged
   * and counted (`ca_publications_total{kind="withdrawal",outcome="unconfirmed"}`).
   */
  async withdraw(events: EventEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    try {
      if (!this.responder) throw new Error('no responder client');
      await this.responder.send(ResponderPattern.Withdraw, { events }, { timeoutMs: PUBLICATION_CONFIRM_MS });
      publicationMetrics.publicationsTotal.inc({ kind: 'withdrawal', outcome: 'confirmed' }, events.length);
    } catch (error) {
      publicationMetrics.publicationsTotal.inc({ kind: 'withdrawal', outcome: 'unconfirmed' }, events.length);
      this.logger.error(
        {
          err: error,
          tenantId: events[0].tenantId,
          serials: events.map((event) => (event.payload as { serialNumber?: string }).serialNumber),
        },
        'the responder did not confirm the withdrawal of issues never stored: it may answer good for them',
      );
    }
  }

  /** Where the outbox ends now (its newest `seq`): what a command records after this lies past it. */
  outboxMark(): Promise<string> {
    return this.outbox.mark();
  }

  /**
   * After a CA change of `tenantId` begun at outbox mark `since` (outboxMark): the CA events it recorded (read back
   * from the outbox, so each handler stays as it is) are published, and the first CRL of every CA
   * they make is awaited, so `ca.pem`, `crl`, `root.crl` and the `ca/{caId}` paths answer at once.
   * Returns whether it was confirmed; the change stands either way (it is committed).
   */
  async publishCaChange(tenantId: string, since: string): Promise<boolean> {
    let events: EventEnvelope[];
    try {
      events = await this.caEventsSince(tenantId, since);
    } catch (error) {
      this.logger.warn({ err: error, tenantId }, 'CA events not read back for publication');
      return false;
    }
    if (events.length === 0) return true;
    try {
      if (!this.responder) throw new Error('no responder client');
      await this.responder.send(
        ResponderPattern.Publish,
        { events, awaitCrls: true },
        { timeoutMs: CA_PUBLICATION_CONFIRM_MS + PUBLICATION_CONFIRM_MS },
      );
      publicationMetrics.publicationsTotal.inc({ kind: 'ca', outcome: 'confirmed' });
      return true;
    } catch (error) {
      publicationMetrics.publicationsTotal.inc({ kind: 'ca', outcome: 'unconfirmed' });
      this.logger.warn({ err: error, tenantId }, 'the distribution side did not confirm the CA in time');
      return false;
    }
  }

  /**
   * Runs a CA change of `tenantId` and publishes what it recorded before the answer goes back
   * (publishCaChange). A command with no valid tenant id fails in `change` itself.
   */
  async aroundCaChange<T>(tenantId: unknown, change: () => Promise<T>): Promise<T> {
    const mark = await this.outboxMark();
    const answer = await change();
    if (typeof tenantId === 'string') await this.publishCaChange(tenantId, mark);
    return answer;
  }

  private caEventsSince(tenantId: string, since: string): Promise<EventEnvelope[]> {
    return this.outbox.eventsSince(tenantId, CA_EVENT_TYPES, since);
  }
}
