import { ClientNats, NatsOptions, ServerNats } from '@nestjs/microservices';

type NatsConnectionLike = {
  subscribe(subject: string, opts: { queue?: string; callback: unknown }): unknown;
};

/**
 * NATS request/reply under a subject prefix, so that several systems (test suites, tenants of a
 * shared NATS) never answer each other's requests. Handlers keep their plain patterns; only the
 * subjects on the wire carry the prefix. An empty prefix is plain NestJS NATS.
 */
export class NamespacedServerNats extends ServerNats {
  constructor(
    private readonly serverOptions: NonNullable<NatsOptions['options']>,
    private readonly prefix: string,
  ) {
    super(serverOptions);
  }

  /** Reports "listening" only once the server has the subscriptions, so no early request meets no responders. */
  override start(callback: (error?: unknown) => void): void {
    super.start(() => {
      const client = (this as unknown as { natsClient?: { flush(): Promise<void> } }).natsClient;
      (client ? client.flush() : Promise.resolve()).then(() => callback(), callback);
    });
  }

  /** Requests not answered yet (each settles with its last reply packet), so `close` can wait for them. */
  private readonly inFlight = new Set<Promise<void>>();
  /** The request a reply publisher belongs to: set once its answer streams, then finished by its last packet. */
  private readonly requestOf = new WeakMap<object, InFlightRequest>();

  /**
   * Closes gracefully: stops taking requests, lets those already received answer, then closes the
   * connection. Nest's own graceful shutdown waits its whole grace period whatever is in flight
   * (2 s per server on every stop); here the wait ends with the last answer, and at `gracePeriod`
   * at the latest.
   */
  override async close(): Promise<void> {
    const state = this as unknown as {
      subscriptions: { unsubscribe(): void }[];
      natsClient?: { flush(): Promise<void> } | null;
    };
    for (const subscription of state.subscriptions.splice(0)) subscription.unsubscribe();
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const gracePeriod = new Promise((resolve) => {
        timer = setTimeout(resolve, this.serverOptions.gracePeriod ?? 10_000);
      });
      await Promise.race([Promise.all([...this.inFlight]), gracePeriod]);
      clearTimeout(timer);
      // The last answers are in the client's buffer: the server has them before the connection goes.
      await state.natsClient?.flush().catch(() => undefined);
    }
    await super.close();
  }

  override getPublisher(
    ...args: Parameters<ServerNats['getPublisher']>
  ): ReturnType<ServerNats['getPublisher']> {
    const publish = super.getPublisher(...args);
    const request = this.requestOf.get(args[0] as object);
    if (!request) return publish;
    const tracked = (packet: { isDisposed?: boolean }) => {
      const result: unknown = publish(packet);
      // Nest marks the last packet of an answer (value, error or completion) as disposed.
      if (packet.isDisposed) request.finish();
      return result;
    };
    this.requestOf.set(tracked, request);
    return tracked;
  }

  override send(...args: Parameters<ServerNats['send']>): ReturnType<ServerNats['send']> {
    const request = this.requestOf.get(args[1]);
    if (request) request.streaming = true;
    return super.send(...args);
  }

  /**
   * A request carries the requester's reply inbox (`_INBOX.<app>.…`). A message on a request
   * subject without one was put there by a JetStream push consumer, whose deliver subject NATS
   * does not check against its creator's publish permissions: it is dropped unanswered, so no
   * service can slip a command past the server's allow-lists (docs/security.md, "The bus").
   */
  override handleMessage(channel: string, natsMsg: { reply?: string; subject?: string }): Promise<unknown> {
    if (!natsMsg.reply?.startsWith('_INBOX.')) {
      this.logger.warn(
        `dropped a message on ${channel} without a reply inbox (reply: ${natsMsg.reply ?? 'none'})`,
      );
      return Promise.resolve(undefined);
    }
    const request = new InFlightRequest();
    this.inFlight.add(request.finished);
    void request.finished.then(() => this.inFlight.delete(request.finished));
    this.requestOf.set(natsMsg, request);
    const handled = super.handleMessage(channel, natsMsg);
    // No answer streams (no handler, a message that does not parse): the request ends here.
    const settled = () => request.streaming || request.finish();
    handled.then(settled, settled);
    return handled;
  }

  override bindEvents(client: Parameters<ServerNats['bindEvents']>[0]): void {
    if (!this.prefix) return super.bindEvents(client);
    const queue = this.serverOptions.queue as string | undefined;
    for (const channel of this.messageHandlers.keys()) {
      const subscription = (client as unknown as NatsConnectionLike).subscribe(`${this.prefix}.${channel}`, {
        queue,
        callback: this.getMessageHandler(channel).bind(this),
      });
      (this as unknown as { subscriptions: unknown[] }).subscriptions.push(subscription);
    }
  }
}

export class NamespacedClientNats extends ClientNats {
  constructor(
    options: NonNullable<NatsOptions['options']>,
    private readonly prefix: string,
  ) {
    super(options);
  }

  protected override normalizePattern(pattern: Parameters<ClientNats['normalizePattern']>[0]): string {
    const subject = super.normalizePattern(pattern);
    return this.prefix ? `${this.prefix}.${subject}` : subject;
  }
}

/** One request between its arrival and its last reply packet. */
class InFlightRequest {
  streaming = false;
  finish!: () => void;
  readonly finished = new Promise<void>((resolve) => (this.finish = resolve));
}
