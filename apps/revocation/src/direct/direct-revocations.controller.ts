import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CaError,
  CertificateRevokedPayload,
  EventEnvelope,
  EventType,
  MAX_DIRECT_REVOCATIONS,
  RecordRevocationsResult,
  RevocationPattern,
  eventEnvelopeProblem,
} from '@ca/contracts';
import { CrlPublisher } from '../crls/crl.publisher';
import { RevocationLedger } from '../ledger/revocation.ledger';

/**
 * The direct path of a bulk revocation job's batches (docs/architecture.md#bulk-revocation-direct-path):
 * issuance sends each committed batch here, and its entries are recorded in one transaction and
 * the CRL of their CA rebuilt, instead of waiting for the stream, whose partition hands this
 * service a tenant's events one at a time. Nothing from the bus is trusted: the message is checked
 * whole, as an HTTP body would be, and each event as the stream's are (RevocationLedger.recordDirect).
 */
@Controller()
export class DirectRevocationsController {
  constructor(
    private readonly ledger: RevocationLedger,
    private readonly publisher: CrlPublisher,
  ) {}

  @MessagePattern(RevocationPattern.RecordRevocations)
  async record(@Payload() command: unknown): Promise<RecordRevocationsResult> {
    const events = checkedRevocations(command);
    const { recorded, caIds } = await this.ledger.recordDirect(events);
    // Not awaited, as on the stream's path: the job goes on while the CRL is built (coalesced per CA).
    for (const caId of caIds) void this.publisher.request(caId);
    return { recorded };
  }
}

/** The message's events: 1 to MAX_DIRECT_REVOCATIONS `certificate.revoked` envelopes of one tenant; else VALIDATION_FAILED. */
export function checkedRevocations(command: unknown): EventEnvelope<CertificateRevokedPayload>[] {
  if (typeof command !== 'object' || command === null || Array.isArray(command)) {
    throw CaError.validation([{ field: '', message: 'must be an object' }]);
  }
  const unknown = Object.keys(command).filter((key) => key !== 'events');
  if (unknown.length > 0) {
    throw CaError.validation(unknown.map((field) => ({ field, message: 'is not a field of this message' })));
  }
  const events: unknown = (command as { events?: unknown }).events;
  if (!Array.isArray(events) || events.length === 0 || events.length > MAX_DIRECT_REVOCATIONS) {
    throw CaError.validation([
      { field: 'events', message: `must be 1 to ${MAX_DIRECT_REVOCATIONS} event envelopes` },
    ]);
  }
  events.forEach((event: unknown, i) => {
    const problem =
      eventEnvelopeProblem(event) ??
      ((event as EventEnvelope).type === EventType.CertificateRevoked
        ? undefined
        : 'not a certificate.revoked');
    if (problem) throw CaError.validation([{ field: `events[${i}]`, message: problem }]);
  });
  const tenants = new Set(events.map((event: EventEnvelope) => event.tenantId.toLowerCase()));
  if (tenants.size > 1) throw CaError.validation([{ field: 'events', message: 'must be of one tenant' }]);
  return events as EventEnvelope<CertificateRevokedPayload>[];
}
