import { createHash, randomUUID } from 'node:crypto';
import { JSONCodec, NatsConnection, connect } from 'nats';
import { partitionOf, partitionToken } from '@ca/messaging';
import { http, ocspStatus } from '@ca/system/testing';
import { SystemUnderTest, SystemUnderTestOptions, startSystemUnderTest } from '@ca/system/testing';

export { SystemUnderTest };

/** The system as `DATABASE_URL=… NATS_URL=… npm start` runs it: one process, real Postgres and NATS. */
export function startRealSystem(options: SystemUnderTestOptions = {}): Promise<SystemUnderTest> {
  return startSystemUnderTest('postgres+nats', options);
}

/** SHA-256 (hex) of the tenant's served CRL, or the HTTP status when there is none. */
export async function servedCrlDigest(sut: SystemUnderTest, tenantId: string): Promise<string> {
  const answer = await http(`${sut.pkiUrl}/v1/tenants/${tenantId}/crl`);
  if (answer.status !== 200) return `HTTP ${answer.status}`;
  return createHash('sha256').update(answer.body).digest('hex');
}

/** The OCSP certStatus kind of each serial, in order. */
export async function ocspKinds(
  sut: SystemUnderTest,
  tenantId: string,
  caDer: Uint8Array,
  serials: string[],
): Promise<string[]> {
  const kinds: string[] = [];
  for (const serial of serials) kinds.push((await ocspStatus(sut.pkiUrl, tenantId, caDer, serial)).kind);
  return kinds;
}

const codec = JSONCodec();

/**
 * An outsider on a development bus (no authentication): a plain NATS connection that may publish
 * and subscribe anywhere, as anything else on that network could.
 */
export class RogueBusClient {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly subjectPrefix: string,
  ) {}

  static async connect(sut: SystemUnderTest): Promise<RogueBusClient> {
    const nc = await connect({ servers: process.env.NATS_URL!, name: 'rogue' });
    return new RogueBusClient(nc, sut.messagingOptions.subjectPrefix);
  }

  /** Publishes an event envelope into the system's stream, as the relay of a service would. */
  async publishEvent(type: string, tenantId: string, payload: unknown, id = randomUUID()): Promise<string> {
    await this.publishRaw(
      type,
      codec.encode({ id, type, tenantId, occurredAt: new Date().toISOString(), payload }),
      id,
      tenantId,
    );
    return id;
  }

  /**
   * Any bytes on an event subject (JetStream de-duplicates by the message id only), in the
   * partition of `tenantId` (partition p00 without one).
   */
  async publishRaw(type: string, data: Uint8Array, msgID = randomUUID(), tenantId?: string): Promise<void> {
    const partition = partitionToken(tenantId === undefined ? 0 : partitionOf(tenantId));
    await this.nc
      .jetstream()
      .publish(`${this.subjectPrefix}.${partition}.${type}`, data, { msgID, timeout: 15_000 });
  }

  /** Starts recording every event of `type` that crosses the bus (a sniffer on its subject). */
  record(type: string): Array<Record<string, unknown>> {
    const seen: Array<Record<string, unknown>> = [];
    this.nc.subscribe(`${this.subjectPrefix}.*.${type}`, {
      // A throwing callback would close the connection; what is not JSON is not an event to record.
      callback: (_, message) => {
        try {
          seen.push(codec.decode(message.data) as Record<string, unknown>);
        } catch {
          /* not JSON */
        }
      },
    });
    return seen;
  }

  close(): Promise<void> {
    return this.nc.close();
  }
}
