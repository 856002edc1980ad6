import {
  CaError,
  CaInitializedPayload,
  CertificateHoldReleasedPayload,
  CertificateIssuedPayload,
  CertificateRevokedPayload,
  CrlPublishedCommand,
  CrlPublishedPayload,
  ErrorCode,
  EventEnvelope,
  EventType,
  MAX_PUBLISHED_EVENTS,
  PublishCommand,
  PublishResult,
  WithdrawCommand,
  WithdrawResult,
  eventEnvelopeProblem,
} from '@ca/contracts';
import { CertificateStatusProjection } from '../certificate-status/certificate-status.projection';
import { CrlToServe, ServedCrlStore } from '../crls/served-crl.store';

/** Applies one CA event as the consumer does (CA row, then its signer, awaited when `direct`). */
export type CaEventApply = (event: EventEnvelope, direct?: boolean) => Promise<void>;

/** The CA events issuance publishes directly, with how each is applied. */
export type CaEventAppliers = Record<
  | typeof EventType.CaInitialized
  | typeof EventType.IssuingCaAdded
  | typeof EventType.RootRenewed
  | typeof EventType.CaRevoked,
  CaEventApply
>;

/** How often a CA's publication looks again for its first CRL (built by revocation, signed by issuance). */
const CRL_POLL_MS = 50;

/**
 * The direct path of issuance's events to the public surface (docs/architecture.md#read-your-writes):
 * issuance sends the events it has just recorded and answers its caller only once this has stored
 * them, so a relying party asking any replica at that instant gets what the API answered. The
 * events are the very envelopes of issuance's outbox, applied through the same inbox and checks
 * as on the event path (which later finds them applied, or applies them should this path fail).
 * Nothing from the bus is trusted: each envelope is schema-checked, and a status of a CA this
 * responder does not hold is refused (issuance then does not answer as published).
 */
export class DirectPublication {
  constructor(
    private readonly servedCrls: ServedCrlStore,
    private readonly statuses: CertificateStatusProjection,
    private readonly caEvents: CaEventAppliers,
    private readonly now: () => number = Date.now,
    /** Applies a `crl.published` as the consumer does (the CRL store of its line). */
    private readonly crlPublished?: (event: EventEnvelope<CrlPublishedPayload>) => Promise<void>,
  ) {}

  /**
   * Revocation's early announcement of a CRL it has just stored, checked as the stream's copy is
   * and applied the same way (pending, copied, verified against the CA, served only if newer);
   * the stream's copy then finds it applied. VALIDATION_FAILED for anything else.
   */
  async crlAnnounced(command: CrlPublishedCommand): Promise<{ applied: true }> {
    const keys = typeof command === 'object' && command !== null ? Object.keys(command) : [];
    const event: unknown = command?.event;
    const problem =
      keys.length !== 1 || keys[0] !== 'event'
        ? 'must be an object with only an event'
        : (eventEnvelopeProblem(event) ??
          ((event as EventEnvelope).type === EventType.CrlPublished ? undefined : 'not a crl.published'));
    if (problem) throw CaError.validation([{ field: 'event', message: problem }]);
    await this.crlPublished?.(event as EventEnvelope<CrlPublishedPayload>);
    return { applied: true };
  }

  async publish(command: PublishCommand, crlWaitMs: number): Promise<PublishResult> {
    const events = checkedEvents(command);
    const issued: EventEnvelope<CertificateIssuedPayload>[] = [];
    const revoked: EventEnvelope<CertificateRevokedPayload>[] = [];
    const refused: string[] = [];
    for (const event of events) {
      if (event.type === EventType.CertificateIssued) {
        await this.flushRevoked(revoked);
        issued.push(event as EventEnvelope<CertificateIssuedPayload>);
        continue;
      }
      // Issues first, in one transaction; then the rest in their order (a revoke after its issue).
      // A run of revocations (a bulk revocation's batch) is applied together too.
      refused.push(...(await this.flushIssued(issued)));
      if (event.type === EventType.CertificateRevoked) {
        revoked.push(event as EventEnvelope<CertificateRevokedPayload>);
        continue;
      }
      await this.flushRevoked(revoked);
      if (event.type === EventType.CertificateHoldReleased)
        await this.statuses.applyHoldReleased(event as EventEnvelope<CertificateHoldReleasedPayload>, {
          strict: true,
        });
      else await this.caEvents[event.type as keyof CaEventAppliers](event, true);
    }
    refused.push(...(await this.flushIssued(issued)));
    await this.flushRevoked(revoked);
    if (command.awaitCrls) await this.awaitFirstCrls(events, crlWaitMs);
    return { applied: events.length - refused.length, refused };
  }

  /**
   * Issuance's withdrawal of `certificate.issued` events it published but did not store (a refusal
   * or a failure of its transaction after the publish): their serials answer `unknown` again
   * (CertificateStatusProjection.withdrawIssued). Each envelope is checked as on publish.
   */
  async withdraw(command: WithdrawCommand): Promise<WithdrawResult> {
    const events = checkedEvents(command, WITHDRAWN_TYPES);
    return {
      withdrawn: await this.statuses.withdrawIssued(events as EventEnvelope<CertificateIssuedPayload>[]),
    };
  }

  /** Applies the revocations gathered so far, together; any of a CA not held here refuses them. */
  private async flushRevoked(revoked: EventEnvelope<CertificateRevokedPayload>[]): Promise<void> {
    if (revoked.length === 0) return;
    await this.statuses.applyRevokedBatch(revoked.splice(0), { strict: true });
  }

  /** Applies the issues gathered so far; returns the ids of those refused (CA not held here). */
  private async flushIssued(issued: EventEnvelope<CertificateIssuedPayload>[]): Promise<string[]> {
    if (issued.length === 0) return [];
    return this.statuses.applyIssuedDirect(issued.splice(0));
  }

  /**
   * Waits until every CRL the CA events make is served: the CRL of the CA that signs leaves (and
   * the root's `root.crl` when there is an issuing CA of ours), or the CRL of an added or renewed
   * CA. Read from the shared schema, so every replica serves them once this returns.
   */
  private async awaitFirstCrls(events: EventEnvelope[], ms: number): Promise<void> {
    const needed = events.flatMap(crlsMadeBy);
    const deadline = this.now() + ms;
    for (;;) {
      const missing: typeof needed = [];
      for (const crl of needed) {
        if (!(await this.servedCrls.isServed(crl))) missing.push(crl);
      }
      if (missing.length === 0) return;
      if (this.now() >= deadline)
        throw new CaError(ErrorCode.ServiceUnavailable, 'The first CRL of the CA is not served yet.');
      needed.splice(0, needed.length, ...missing);
      await new Promise((resolve) => setTimeout(resolve, CRL_POLL_MS));
    }
  }
}

const PUBLISHED_TYPES: ReadonlySet<string> = new Set([
  EventType.CaInitialized,
  EventType.IssuingCaAdded,
  EventType.RootRenewed,
  EventType.CaRevoked,
  EventType.CertificateIssued,
  EventType.CertificateRevoked,
  EventType.CertificateHoldReleased,
]);

/** Only issues can be withdrawn: a revocation or a CA change is committed before it is published. */
const WITHDRAWN_TYPES: ReadonlySet<string> = new Set([EventType.CertificateIssued]);

/** The command's events, each checked like one delivered by the bus; else VALIDATION_FAILED. */
function checkedEvents(
  command: PublishCommand | WithdrawCommand,
  types: ReadonlySet<string> = PUBLISHED_TYPES,
): EventEnvelope[] {
  const events: unknown = command?.events;
  if (!Array.isArray(events) || events.length === 0 || events.length > MAX_PUBLISHED_EVENTS) {
    throw CaError.validation([
      { field: 'events', message: `must be 1 to ${MAX_PUBLISHED_EVENTS} event envelopes` },
    ]);
  }
  events.forEach((event: unknown, i) => {
    const problem =
      eventEnvelopeProblem(event) ??
      (types.has((event as EventEnvelope).type) ? undefined : 'not an event issuance publishes');
    if (problem) throw CaError.validation([{ field: `events[${i}]`, message: problem }]);
  });
  return events as EventEnvelope[];
}

function crlsMadeBy(event: EventEnvelope): CrlToServe[] {
  switch (event.type) {
    case EventType.CaInitialized: {
      const payload = event.payload as CaInitializedPayload;
      const crls: CrlToServe[] = [{ table: 'ocsp.crls', key: 'tenant_id', owner: event.tenantId }];
      // A corporate root's CRL is its owner's, never ours (docs/api.md#external-root).
      if (payload.issuingCaId && !payload.externalRoot)
        crls.push({ table: 'ocsp.root_crls', key: 'tenant_id', owner: event.tenantId });
      return crls;
    }
    case EventType.IssuingCaAdded:
    case EventType.RootRenewed:
      return [{ table: 'ocsp.ca_crls', key: 'ca_id', owner: (event.payload as { caId: string }).caId }];
    default:
      return [];
  }
}
