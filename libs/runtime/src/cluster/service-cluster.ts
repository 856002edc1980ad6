import cluster, { Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { Logger } from '@ca/observability';
import { WorkerRestarts } from './worker-restarts';

/** The message a worker sends its primary once its service started (runService). */
export const WORKER_STARTED = 'ca:service-started';
/** The message the primary sends a worker to stop it gracefully, as SIGTERM would. */
export const WORKER_STOP = 'ca:service-stop';
/** How long the workers have to stop after SIGTERM before the primary kills them. */
const STOP_DEADLINE_MS = 20_000;

/** `auto`: one worker per CPU the process may run on. */
export function resolveWorkerCount(workers: number | 'auto'): number {
  return workers === 'auto' ? availableParallelism() : workers;
}

/**
 * Workers accept on the shared listening socket themselves (SCHED_NONE) unless
 * NODE_CLUSTER_SCHED_POLICY says otherwise. Node's default on Linux, round-robin, has the primary
 * accept every connection and pass it to a worker over IPC: on 2 cores two such workers answered
 * fewer OCSP requests than one process (about half on fresh connections; see
 * docs/benchmarks.md), while the kernel's choice spread them well enough. It also loses no
 * connection when a worker dies: what waits in the accept queue is taken by another.
 */
function sharedAccept(): void {
  if (!process.env.NODE_CLUSTER_SCHED_POLICY) cluster.schedulingPolicy = cluster.SCHED_NONE;
}

interface WorkerSlot {
  worker?: Worker;
  forkedAt: number;
  started: boolean;
  /** Times this worker was forked. */
  forks: number;
  restartTimer?: NodeJS.Timeout;
}

/**
 * The primary of a service run as `workers` processes (node:cluster): it opens nothing itself
 * (no database, no NATS, no port of its own); each worker is the whole service, started by
 * runService as a replica would be, and the ports the workers listen on are shared: each worker
 * accepts on the one listening socket, the kernel picks which (see `sharedAccept`). A worker that dies is forked again (see
 * WorkerRestarts for the back-off and when to give up); SIGTERM or SIGINT stops every worker
 * gracefully and exits 0 once all stopped cleanly.
 */
export function runClusterPrimary(options: { name: string; workers: number; logger: Logger }): void {
  const { name, workers, logger } = options;
  const restarts = new WorkerRestarts(workers);
  const slots: WorkerSlot[] = Array.from({ length: workers }, () => ({
    forkedAt: 0,
    started: false,
    forks: 0,
  }));
  let stopping = false;

  const fork = (index: number) => {
    const slot = slots[index];
    slot.restartTimer = undefined;
    slot.started = false;
    slot.forkedAt = Date.now();
    slot.forks++;
    const worker = cluster.fork({ SERVICE_WORKER_INDEX: String(index + 1) });
    slot.worker = worker;
    worker.on('message', (message: unknown) => {
      if ((message as { type?: string } | null)?.type !== WORKER_STARTED) return;
      slot.started = true;
      restarts.started();
      const fields = { worker: index + 1, pid: worker.process.pid };
      // A worker back after a restart is worth a line at the default production level.
      if (slot.forks > 1) logger.warn(fields, `${name} worker ${index + 1} started again`);
      else logger.info(fields, `${name} worker ${index + 1} started`);
    });
    worker.once('exit', (code, signal) => {
      slot.worker = undefined;
      if (stopping) return;
      const ranMs = Date.now() - slot.forkedAt;
      const decision = restarts.exited(slot.started, ranMs);
      const how = signal ? `on ${signal}` : `with code ${code}`;
      if (decision.action === 'give-up') {
        logger.fatal({ worker: index + 1, code, signal }, `${name} worker exited ${how}; ${decision.reason}`);
        process.stderr.write(`Start-up failed: ${name}: ${decision.reason}\n`);
        void stop(1);
        return;
      }
      logger.error(
        { worker: index + 1, code, signal, restartInMs: decision.delayMs },
        `${name} worker exited ${how}${slot.started ? '' : ' before it started'}; starting it again`,
      );
      slot.restartTimer = setTimeout(() => fork(index), decision.delayMs);
    });
  };

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    for (const slot of slots) clearTimeout(slot.restartTimer);
    const running = slots.flatMap((slot) => (slot.worker ? [slot.worker] : []));
    const deadline = setTimeout(() => {
      for (const worker of running) worker.process.kill('SIGKILL');
    }, STOP_DEADLINE_MS);
    const codes = await Promise.all(
      running.map(
        (worker) =>
          new Promise<number | null>((resolve) => {
            if (worker.process.exitCode !== null || worker.process.signalCode !== null)
              return resolve(worker.process.exitCode);
            worker.once('exit', (code) => resolve(code));
            // By message, not by signal: a worker also stops on its own SIGTERM, and a Ctrl-C
            // (SIGINT to the whole process group) must not reach it twice.
            if (worker.isConnected()) worker.send({ type: WORKER_STOP });
            else worker.process.kill('SIGTERM');
          }),
      ),
    );
    clearTimeout(deadline);
    const clean = codes.every((code) => code === 0);
    logger.info({ codes }, `${name} stopped`);
    process.exit(exitCode === 0 && clean ? 0 : 1);
  };

  const onSignal = () => {
    if (stopping) process.exit(1); // a second signal: stop at once
    logger.info(`${name} stopping ${workers} workers`);
    void stop(0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  sharedAccept();
  logger.info({ workers, pid: process.pid }, `${name} starting ${workers} workers`);
  for (let i = 0; i < workers; i++) fork(i);
}
