/**
 * What `npm start` runs (apps/embedded: the four services in one process), for a benchmark on a
 * real Postgres and NATS: the same services and wiring, but with JetStream stream and subject
 * names of their own, so that the benchmark never shares a stream with another system on the same
 * NATS server; the stream is deleted when the process is stopped (SIGTERM).
 *
 * Without DATABASE_URL it is embedded mode itself (PGlite, in-process transport); with
 * BENCH_DATABASE_URL_FILE set it writes the database's URL there (0600), so the benchmark can read
 * the embedded database's table sizes while the system runs (bench/lib/storage.ts).
 *
 * Run by bench/lib/system.ts as `node -r @swc-node/register bench/lib/launch-system.ts`.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '@ca/config';
import { startEmbeddedSystem } from '@ca/embedded';
import { benchStreamName, deleteBenchStreams } from './bench-streams';
import { sampleMemoryToFile } from './memory-samples';

async function main(): Promise<void> {
  sampleMemoryToFile();
  const config = loadConfig();
  // Chosen by bench/lib/system.ts, which also deletes the streams if this process dies first.
  const id = process.env.BENCH_STREAM_ID ?? randomBytes(5).toString('hex');
  const streamName = benchStreamName(id);
  const messaging = config.natsUrl
    ? { streamName, subjectPrefix: `bench.${id}`, rpcSubjectPrefix: `bench-rpc.${id}` }
    : undefined;
  const system = await startEmbeddedSystem(config, { messaging });
  const urlFile = process.env.BENCH_DATABASE_URL_FILE;
  if (urlFile) writeFileSync(urlFile, system.databaseUrl, { mode: 0o600 });
  process.stdout.write(`bench system ready (stream ${messaging ? streamName : 'in-process'})\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await system.stop().catch((error: unknown) => process.stderr.write(`stop failed: ${String(error)}\n`));
    if (config.natsUrl) await deleteBenchStreams(config.natsUrl, id).catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`launch-system: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
