import { CreateWebhooksSchema1767100000000 } from './1767100000000-create-webhooks-schema';

export const WEBHOOKS_MIGRATIONS = [CreateWebhooksSchema1767100000000];
