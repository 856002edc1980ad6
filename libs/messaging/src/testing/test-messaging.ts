import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { Messaging, openMessaging } from '../messaging';

export type TransportKind = 'in-process' | 'nats';

/** The transports a suite runs on: always in-process, and NATS when NATS_URL is set. */
/** In-process, and NATS when NATS_URL is set; `TEST_REAL_ONLY=1` leaves in-process out. */
export function transportKinds(): TransportKind[] {
  if (!process.env.NATS_URL) return ['in-process'];
  return process.env.TEST_REAL_ONLY === '1' ? ['nats'] : ['in-process', 'nats'];
}

export interface TestMessaging {
  /** Opens a connection to this suite's messaging (call again to simulate a restarted service). */
  open(name?: string): Promise<Messaging>;
  /** The stream and subject names of this suite, for a system started with its own messaging. */
  options: { streamName: string; subjectPrefix: string; rpcSubjectPrefix: string };
  /** Removes the suite's JetStream stream. */
  cleanup(): Promise<void>;
}

/**
 * Messaging that belongs to one suite: on NATS its own stream and subject prefix (deleted
 * afterwards); in process, its stream lives in the suite's own database.
 */
export function createTestMessaging(kind: TransportKind, databaseUrl: string): TestMessaging {
  const id = randomBytes(5).toString('hex');
  const natsUrl = kind === 'nats' ? process.env.NATS_URL : undefined;
  const streamName = `TEST_${id.toUpperCase()}`;
  const subjectPrefix = `test.${id}`;
  // Outside the event subjects: the stream would otherwise capture the requests and answer them.
  const rpcSubjectPrefix = `rpc.${id}`;
  return {
    open: (name?: string) =>
      openMessaging({
        natsUrl,
        databaseUrl,
        streamName,
        subjectPrefix,
        rpcSubjectPrefix,
        rpcTimeoutMs: 5_000,
        name,
      }),
    options: { streamName, subjectPrefix, rpcSubjectPrefix },
    cleanup: async () => {
      if (!natsUrl) return;
      const nc = await connect({ servers: natsUrl });
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.delete(streamName).catch(() => undefined);
        await jsm.streams.delete(`OBJ_${streamName}_BLOBS`).catch(() => undefined);
      } finally {
        await nc.close();
      }
    },
  };
}
