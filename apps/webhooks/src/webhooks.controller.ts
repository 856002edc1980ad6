import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CaError,
  CertificateIssuedPayload,
  EventEnvelope,
  EventType,
  WebhooksApi,
  WebhooksPattern,
  Uuid,
  assertCommandFields,
  commandTenantId,
  eventEnvelopeProblem,
  parseUuid,
  parseWebhookRequest,
  TenantId,
} from '@ca/contracts';
import { Subscriptions } from './subscriptions/subscriptions';

type Request<P extends keyof WebhooksApi> = WebhooksApi[P][0];
type Reply<P extends keyof WebhooksApi> = Promise<WebhooksApi[P][1]>;

const NOT_FOUND = 'No such webhook in this tenant.';
/** A committed batch of issuance holds at most 64 (its group commit's batch). */
const MAX_EARLY_EVENTS = 256;

export const EARLY_ISSUED = Symbol('EARLY_ISSUED');
export type EarlyIssued = (events: EventEnvelope<CertificateIssuedPayload>[]) => Promise<void>;

/** The request/reply surface of the webhooks context; every message schema-checked. */
@Controller()
export class WebhooksController {
  constructor(
    private readonly subscriptions: Subscriptions,
    @Inject(EARLY_ISSUED) private readonly applyIssued: EarlyIssued,
  ) {}

  /**
   * The early path (docs/architecture.md#webhooks-early-path): issuance's committed
   * `certificate.issued` events, applied now as the stream would apply them (once each, by the
   * inbox). What does not check out is left to the stream, which sets it aside as it does.
   */
  @MessagePattern(WebhooksPattern.Issued)
  async issued(
    @Payload() message: Request<typeof WebhooksPattern.Issued>,
  ): Reply<typeof WebhooksPattern.Issued> {
    const events: unknown[] = Array.isArray(message?.events) ? message.events.slice(0, MAX_EARLY_EVENTS) : [];
    const valid = events.filter(
      (event): event is EventEnvelope<CertificateIssuedPayload> =>
        (event as EventEnvelope | null)?.type === EventType.CertificateIssued &&
        eventEnvelopeProblem(event) === undefined,
    );
    if (valid.length > 0) await this.applyIssued(valid);
    return { applied: true };
  }

  @MessagePattern(WebhooksPattern.Create)
  create(@Payload() command: Request<typeof WebhooksPattern.Create>): Reply<typeof WebhooksPattern.Create> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    const { value, errors } = parseWebhookRequest(command);
    if (!value) throw CaError.validation(errors);
    const key = command.recipientPublicKey;
    if (typeof key !== 'string' || key.length === 0 || key.length > 1024) {
      throw CaError.validation([{ field: 'recipientPublicKey', message: 'must be an X25519 public key' }]);
    }
    return this.subscriptions.create(commandTenantId(command), value, key);
  }

  @MessagePattern(WebhooksPattern.List)
  async list(@Payload() query: Request<typeof WebhooksPattern.List>): Reply<typeof WebhooksPattern.List> {
    assertCommandFields(query, { tenantId: 'uuid' });
    return { webhooks: await this.subscriptions.list(commandTenantId(query)) };
  }

  @MessagePattern(WebhooksPattern.Delete)
  async delete(
    @Payload() command: Request<typeof WebhooksPattern.Delete>,
  ): Reply<typeof WebhooksPattern.Delete> {
    const { tenantId, webhookId } = this.webhookCommand(command, true);
    await this.subscriptions.delete(tenantId, webhookId);
    return { webhookId, deleted: true };
  }

  @MessagePattern(WebhooksPattern.Test)
  test(@Payload() command: Request<typeof WebhooksPattern.Test>): Reply<typeof WebhooksPattern.Test> {
    const { tenantId, webhookId } = this.webhookCommand(command, true);
    return this.subscriptions.test(tenantId, webhookId);
  }

  @MessagePattern(WebhooksPattern.Deliveries)
  async deliveries(
    @Payload() query: Request<typeof WebhooksPattern.Deliveries>,
  ): Reply<typeof WebhooksPattern.Deliveries> {
    const { tenantId, webhookId } = this.webhookCommand(query, false);
    const limit = query.limit === undefined ? 100 : query.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw CaError.validation([{ field: 'limit', message: 'must be a whole number from 1 to 1000' }]);
    }
    return {
      deliveries: await this.subscriptions.deliveries(tenantId, webhookId, limit),
    };
  }

  /** The command's tenant and webhook, checked and lower-cased; an id that is not a UUID names no webhook. */
  private webhookCommand(
    command: { tenantId: string; webhookId: string },
    write: boolean,
  ): { tenantId: TenantId; webhookId: Uuid } {
    assertCommandFields(command, write ? { tenantId: 'uuid', principal: 'principal' } : { tenantId: 'uuid' });
    const webhookId = parseUuid(command.webhookId);
    if (!webhookId) throw CaError.notFound(NOT_FOUND);
    return { tenantId: commandTenantId(command), webhookId };
  }
}
