import { DynamicModule, Module } from '@nestjs/common';
import { Subscriptions } from './subscriptions/subscriptions';
import { EARLY_ISSUED, EarlyIssued, WebhooksController } from './webhooks.controller';

@Module({})
export class WebhooksModule {
  static register(deps: { subscriptions: Subscriptions; applyIssued: EarlyIssued }): DynamicModule {
    return {
      module: WebhooksModule,
      controllers: [WebhooksController],
      providers: [
        { provide: Subscriptions, useValue: deps.subscriptions },
        { provide: EARLY_ISSUED, useValue: deps.applyIssued },
      ],
    };
  }
}
