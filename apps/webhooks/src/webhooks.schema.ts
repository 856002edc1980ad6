/** The Postgres schema owned by the webhooks context: subscriptions, watched certificates, messages, attempts. */
export const WEBHOOKS_SCHEMA = 'webhooks';
