export { startWebhooks, type WebhooksOptions } from './start-webhooks';
