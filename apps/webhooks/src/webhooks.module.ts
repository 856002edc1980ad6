import { DynamicModule, Module } from '@nestjs/common';
import { Subscriptions } from './subscriptions/subscriptions';
import { WebhooksController } from './webhooks.controller';

@Module({})
export class WebhooksModule {
  static register(deps: { subscriptions: Subscriptions }): DynamicModule {
    return {
      module: WebhooksModule,
      controllers: [WebhooksController],
      providers: [{ provide: Subscriptions, useValue: deps.subscriptions }],
    };
  }
}
