import { connect } from 'nats';

/** The JetStream stream of one benchmark system on a shared NATS (see launch-system.ts). */
export function benchStreamName(id: string): string {
  return `BENCH_${id.toUpperCase()}`;
}

/** Removes the event stream and the blob store's stream of one benchmark system. */
export async function deleteBenchStreams(natsUrl: string, id: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(benchStreamName(id)).catch(() => undefined);
    await jsm.streams.delete(`OBJ_${benchStreamName(id)}_BLOBS`).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
