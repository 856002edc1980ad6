import 'reflect-metadata';
import { runService } from '@ca/runtime';
import { startWebhooks } from './start-webhooks';

void runService({ name: 'webhooks', defaultHealthPort: 3005, start: startWebhooks });
