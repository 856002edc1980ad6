import { NatsConnection, connect } from 'nats';

/**
 * What any process that reaches NATS can read: a plain subscriber to the system's event and
 * request subjects, every reply inbox and the object store. Keeps each message's subject, headers
 * and data, to search for what must never cross the bus.
 */
export class BusSniffer {
  private readonly captured: Buffer[] = [];

  private constructor(private readonly nc: NatsConnection) {}

  static async start(natsUrl: string, subjects: readonly string[]): Promise<BusSniffer> {
    const sniffer = new BusSniffer(await connect({ servers: natsUrl, name: 'bus-sniffer' }));
    for (const subject of subjects) {
      sniffer.nc.subscribe(subject, {
        callback: (_err, message) => {
          const headers = message.headers ? [...message.headers].map(([k, v]) => `${k}: ${v.join(',')}`) : [];
          sniffer.captured.push(
            Buffer.from(`${message.subject}\n${headers.join('\n')}\n`),
            Buffer.from(message.data),
          );
        },
      });
    }
    await sniffer.nc.flush();
    return sniffer;
  }

  /** Everything seen so far, concatenated. */
  traffic(): Buffer {
    return Buffer.concat(this.captured);
  }

  get messageCount(): number {
    return this.captured.length / 2;
  }

  async stop(): Promise<void> {
    await this.nc.drain();
  }
}
