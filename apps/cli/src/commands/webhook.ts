import { Command, UsageError, integerOption, listOption, onePositional, printJson } from '../command';
import { details, table } from '../table';

/** docs/api.md#webhooks list entry. */
interface WebhookSummary {
  webhookId: string;
  url: string;
  events: string[];
  expiringDays: number[];
  createdAt: string;
}

interface DeliveryAttempt {
  eventId: string;
  type: string;
  attempt: number;
  statusCode?: number;
  durationMs: number;
  at: string;
  error?: string;
}

const EVENT_TYPES =
  'certificate.issued, certificate.renewed, certificate.revoked, certificate.expiring, ' +
  'certificate.expired, ca.issuing-added, ca.revoked, ca.replace-leaves-requested, crl.published';

/** `webhook add <url> --event TYPE … [--expiring-days N …]` (POST /v2/webhooks): prints the secret once. */
export const webhookAdd: Command = {
  name: 'webhook add',
  summary: 'subscribe a receiver to lifecycle events (prints its signing secret, once)',
  usage: `<https-url> --event TYPE [--event TYPE …] [--expiring-days N …]\n    TYPE: ${EVENT_TYPES}`,
  options: {
    event: { type: 'string', multiple: true },
    'expiring-days': { type: 'string', multiple: true },
  },
  async run(context) {
    const url = onePositional(context.positionals, 'the receiver URL');
    const events = listOption(context.values, 'event');
    if (events.length === 0) throw new UsageError('at least one --event is needed');
    const days = listOption(context.values, 'expiring-days').map((raw) => {
      if (!/^\d+$/.test(raw)) throw new UsageError(`--expiring-days must be whole days, got '${raw}'`);
      return Number(raw);
    });
    const answer = await context.api.post<{ webhookId: string; secret: string; createdAt: string }>(
      'v2/webhooks',
      { url, events, ...(days.length > 0 ? { expiringDays: days } : {}) },
    );
    if (context.json) return printJson(context, answer);
    context.print(
      details([
        ['Webhook', answer.webhookId],
        ['Secret', answer.secret],
        ['Note', 'the secret is shown once: give it to the receiver now'],
      ]),
    );
  },
};

/** `webhook list` (GET /v2/webhooks): without secrets. */
export const webhookList: Command = {
  name: 'webhook list',
  summary: "list the tenant's webhooks (without secrets)",
  usage: '',
  options: {},
  async run(context) {
    if (context.positionals.length > 0)
      throw new UsageError(`unexpected argument '${context.positionals[0]}'`);
    const answer = await context.api.get<{ webhooks: WebhookSummary[] }>('v2/webhooks');
    if (context.json) return printJson(context, answer);
    if (answer.webhooks.length === 0) return context.print('No webhooks.');
    context.print(
      table(
        ['ID', 'URL', 'EVENTS', 'EXPIRING DAYS'],
        answer.webhooks.map((w) => [w.webhookId, w.url, w.events.join(','), w.expiringDays.join(',')]),
      ),
    );
  },
};

/** `webhook delete <id>` (DELETE /v2/webhooks/{id}): undelivered events are dropped. */
export const webhookDelete: Command = {
  name: 'webhook delete',
  summary: 'delete a webhook (what it has not delivered yet is dropped)',
  usage: '<webhook-id>',
  options: {},
  async run(context) {
    const id = onePositional(context.positionals, 'the webhook id');
    const answer = await context.api.delete<{ webhookId: string }>(`v2/webhooks/${encodeURIComponent(id)}`);
    if (context.json) return printJson(context, answer);
    context.print(details([['Deleted', answer.webhookId]]));
  },
};

/** `webhook test <id>` (POST /v2/webhooks/{id}/test): queues a webhook.test event. */
export const webhookTest: Command = {
  name: 'webhook test',
  summary: 'send a webhook.test event to a webhook',
  usage: '<webhook-id>',
  options: {},
  async run(context) {
    const id = onePositional(context.positionals, 'the webhook id');
    const answer = await context.api.post<{ eventId: string }>(
      `v2/webhooks/${encodeURIComponent(id)}/test`,
      {},
    );
    if (context.json) return printJson(context, answer);
    context.print(
      details([
        ['Queued', answer.eventId],
        ['Check', `npm run -s cli -- webhook deliveries ${id}`],
      ]),
    );
  },
};

/** `webhook deliveries <id> [--limit N]` (GET /v2/webhooks/{id}/deliveries): newest first. */
export const webhookDeliveries: Command = {
  name: 'webhook deliveries',
  summary: "a webhook's recent delivery attempts, newest first",
  usage: '<webhook-id> [--limit N]',
  options: { limit: { type: 'string' } },
  async run(context) {
    const id = onePositional(context.positionals, 'the webhook id');
    const limit = integerOption(context.values, 'limit');
    const answer = await context.api.get<{ deliveries: DeliveryAttempt[] }>(
      `v2/webhooks/${encodeURIComponent(id)}/deliveries`,
    );
    const deliveries =
      limit === undefined ? answer.deliveries : answer.deliveries.slice(0, Math.max(limit, 0));
    if (context.json) return printJson(context, { deliveries });
    if (deliveries.length === 0) return context.print('No delivery attempts yet.');
    context.print(
      table(
        ['AT', 'EVENT', 'TYPE', 'ATTEMPT', 'STATUS', 'MS', 'ERROR'],
        deliveries.map((d) => [
          d.at,
          d.eventId,
          d.type,
          d.attempt,
          d.statusCode ?? '-',
          d.durationMs,
          d.error ?? '',
        ]),
      ),
    );
  },
};
