import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import {
  CaError,
  WEBHOOK_EVENT_TYPES,
  WebhookDeliveryAttempt,
  WebhookSummary,
  WebhooksApi,
  WebhooksPattern,
  parseWebhookRequest,
  Uuid,
  parseUuid,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { writeCommand } from '../certificates/write-command';
import { relaySealedSecret } from '../http/sealed-secret-relay';

export const WEBHOOKS_RPC = Symbol('WEBHOOKS_RPC');

class WebhookRequestDoc {
  @ApiProperty({
    example: 'https://hooks.example.com/ca',
    description:
      'Where events are POSTed: https, to a host that resolves to public addresses only (a deployment ' +
      'with WEBHOOK_ALLOW_PRIVATE_TARGETS=true also allows http and private addresses). No redirect is followed.',
  })
  url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true })
  events!: string[];
  @ApiPropertyOptional({
    type: [Number],
    example: [30, 7, 1],
    description: 'Days before notAfter at which certificate.expiring fires, once each (default [30, 7, 1]).',
  })
  expiringDays?: number[];
}

class CreatedWebhookDoc {
  @ApiProperty({ format: 'uuid' })
  webhookId!: string;
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The signing secret (Standard Webhooks). Shown once, never again.',
  })
  secret!: string;
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

class WebhookSummaryDoc {
  @ApiProperty({ format: 'uuid' })
  webhookId!: string;
  @ApiProperty()
  url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true })
  events!: string[];
  @ApiProperty({ type: [Number] })
  expiringDays!: number[];
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

class WebhookListDoc {
  @ApiProperty({ type: [WebhookSummaryDoc] })
  webhooks!: WebhookSummaryDoc[];
}

class DeletedWebhookDoc {
  @ApiProperty({ format: 'uuid' })
  webhookId!: string;
  @ApiProperty({ enum: [true] })
  deleted!: true;
}

class TestEventDoc {
  @ApiProperty({ description: 'The webhook-id of the queued webhook.test event.' })
  eventId!: string;
}

class DeliveryAttemptDoc {
  @ApiProperty({ description: 'The webhook-id (the same on every attempt of one event).' })
  eventId!: string;
  @ApiProperty({ example: 'certificate.issued' })
  type!: string;
  @ApiProperty({ description: '1 for the first attempt.' })
  attempt!: number;
  @ApiPropertyOptional({ description: "The receiver's HTTP status, when it answered." })
  statusCode?: number;
  @ApiProperty()
  durationMs!: number;
  @ApiProperty({ format: 'date-time' })
  at!: string;
  @ApiPropertyOptional({ description: 'Why the attempt got no answer (timeout, refused target, …).' })
  error?: string;
}

class DeliveryListDoc {
  @ApiProperty({ type: [DeliveryAttemptDoc] })
  deliveries!: DeliveryAttemptDoc[];
}

const NOT_FOUND = 'No such webhook in this tenant.';

/**
 * docs/api.md#webhooks: a tenant's subscriptions to lifecycle events. The webhooks context makes
 * and keeps the signing secret and seals it to a key this request generates, so it never crosses
 * the bus in clear; the gateway answers it once.
 */
@ApiTags('Webhooks')
@ApiBearerAuth()
@Controller('v2/webhooks')
export class WebhooksController {
  constructor(@Inject(WEBHOOKS_RPC) private readonly webhooks: RpcClient<WebhooksApi>) {}

  @Post()
  @HttpCode(201)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: 'Subscribe to lifecycle events (the secret is shown once)',
    operationId: 'createWebhook',
  })
  @ApiBody({ type: WebhookRequestDoc })
  @ApiCreatedResponse({ type: CreatedWebhookDoc })
  async create(
    @Body() body: unknown,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ) {
    const { value, errors } = parseWebhookRequest(body);
    if (!value) throw CaError.validation(errors);
    const { reply: created, secret } = await relaySealedSecret(
      'secret',
      (recipientPublicKey) =>
        this.webhooks.send(WebhooksPattern.Create, {
          ...writeCommand(principal, req),
          ...value,
          recipientPublicKey,
        }),
      (reply) => reply.sealedSecret,
    );
    return { webhookId: created.webhookId, secret, createdAt: created.createdAt };
  }

  @Get()
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({ summary: "List the tenant's webhooks (without secrets)", operationId: 'listWebhooks' })
  @ApiOkResponse({ type: WebhookListDoc })
  list(@CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<{ webhooks: WebhookSummary[] }> {
    return this.webhooks.send(WebhooksPattern.List, { tenantId: principal.tenantId });
  }

  @Delete(':webhookId')
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: 'Delete a webhook (its undelivered events are dropped)',
    operationId: 'deleteWebhook',
  })
  @ApiOkResponse({ type: DeletedWebhookDoc })
  delete(
    @Param('webhookId') webhookId: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ) {
    return this.webhooks.send(WebhooksPattern.Delete, {
      ...writeCommand(principal, req),
      webhookId: id(webhookId),
    });
  }

  @Post(':webhookId/test')
  @HttpCode(202)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({ summary: 'Send a webhook.test event to this webhook', operationId: 'testWebhook' })
  @ApiAcceptedResponse({ type: TestEventDoc })
  test(
    @Param('webhookId') webhookId: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ) {
    return this.webhooks.send(WebhooksPattern.Test, {
      ...writeCommand(principal, req),
      webhookId: id(webhookId),
    });
  }

  @Get(':webhookId/deliveries')
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: "A webhook's recent delivery attempts, newest first (at most 100)",
    operationId: 'listWebhookDeliveries',
  })
  @ApiOkResponse({ type: DeliveryListDoc })
  deliveries(
    @Param('webhookId') webhookId: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<{ deliveries: WebhookDeliveryAttempt[] }> {
    return this.webhooks.send(WebhooksPattern.Deliveries, {
      tenantId: principal.tenantId,
      webhookId: id(webhookId),
    });
  }
}

/** A path id that is not a UUID names no webhook. */
function id(webhookId: string): Uuid {
  const parsed = parseUuid(webhookId);
  if (!parsed) throw CaError.notFound(NOT_FOUND);
  return parsed;
}
