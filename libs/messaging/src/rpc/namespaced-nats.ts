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
    return super.handleMessage(channel, natsMsg);
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
