import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import { BaseRpcContext } from '@nestjs/microservices/ctx-host/base-rpc.context';
import { lastValueFrom } from 'rxjs';
import { InProcessHandler, InProcessRegistry } from './in-process.registry';
import { HeaderReader, headerReader } from './rpc-headers';

/**
 * A NestJS transport strategy that serves `@MessagePattern` handlers through an in-process
 * registry instead of NATS subjects; the handlers cannot tell the difference.
 */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private readonly registered: Array<[string, InProcessHandler]> = [];

  constructor(private readonly registry: InProcessRegistry) {
    super();
  }

  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      const entry = this.toInProcessHandler(handler);
      this.registry.register(pattern, entry);
      this.registered.push([pattern, entry]);
    }
    callback();
  }

  close(): void {
    for (const [pattern, handler] of this.registered.splice(0)) this.registry.unregister(pattern, handler);
  }

  on(): void {
    // No connection status events in process.
  }

  unwrap<T>(): T {
    return this.registry as T;
  }

  private toInProcessHandler(handler: MessageHandler): InProcessHandler {
    return async (payload, headers) => {
      const result = await handler(payload, new InProcessContext([headerReader(headers)]));
      return lastValueFrom(this.transformToObservable(result));
    };
  }
}

/** The handler's view of an in-process request: its headers, read like NatsContext's. */
export class InProcessContext extends BaseRpcContext<[HeaderReader]> {
  getHeaders(): HeaderReader {
    return this.args[0];
  }
}
