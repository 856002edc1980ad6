import { ClientProxy, ReadPacket, WritePacket } from '@nestjs/microservices';
import { copyReply } from './binary-reply';
import { InProcessRegistry } from './in-process.registry';
import { unwrapRecord } from './rpc-headers';

/** Marks "nobody answers this subject", like NATS's no-responders status. */
export const NO_RESPONDERS = 'NO_RESPONDERS';

/**
 * The client half of the in-process transport. Payloads and replies are copied through JSON
 * so that embedded mode has exactly the wire semantics of NATS (no shared objects, dates as strings,
 * a reply value's byte fields as bytes: binary-reply.ts).
 */
export class InProcessClient extends ClientProxy {
  constructor(private readonly registry: InProcessRegistry) {
    super();
  }

  async connect(): Promise<void> {
    // Nothing to connect to.
  }

  close(): void {
    // Nothing to release.
  }

  unwrap<T>(): T {
    return this.registry as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const handler = this.registry.resolve(String(this.normalizePattern(packet.pattern)));
    if (!handler) {
      setImmediate(() => callback({ err: NO_RESPONDERS, isDisposed: true }));
      return () => undefined;
    }
    // Headers (trace context, request id) travel beside the payload, as on NATS.
    const { payload, headers } = unwrapRecord(packet.data);
    handler(copy(payload), { ...headers }).then(
      (response) => callback({ response: copyReply(response), isDisposed: true }),
      (err: unknown) =>
        callback({ err: copy(err instanceof Error ? { message: err.message } : err), isDisposed: true }),
    );
    return () => undefined;
  }

  protected async dispatchEvent(): Promise<never> {
    throw new Error('Fire-and-forget events are not used: durable events go through the EventBus.');
  }
}

function copy<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}
