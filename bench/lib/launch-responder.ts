/**
 * What `npx nx serve ocsp-responder` runs (apps/ocsp-responder/src/main.ts: runService, with
 * OCSP_RESPONDER_WORKERS), on the JetStream stream and subjects of a benchmark system started by
 * launch-system.ts (BENCH_STREAM_ID), so that it is a replica of that system's responder.
 *
 * Run by bench/ocsp.ts as `node -r @swc-node/register bench/lib/launch-responder.ts`.
 */
import 'reflect-metadata';
import { startOcspResponder } from '@ca/ocsp-responder';
import { runService } from '@ca/runtime';
import { benchStreamName } from './bench-streams';

const id = process.env.BENCH_STREAM_ID;
if (!id) {
  process.stderr.write('launch-responder: BENCH_STREAM_ID is required\n');
  process.exit(1);
}
void runService({
  name: 'ocsp-responder',
  start: startOcspResponder,
  workers: (config) => config.ocsp.workers,
  messaging: {
    streamName: benchStreamName(id),
    subjectPrefix: `bench.${id}`,
    rpcSubjectPrefix: `bench-rpc.${id}`,
  },
});
