/**
 * Events scaling: a backlog of events across many tenants (default 50,000 over 200) on real NATS
 * JetStream, drained by one consumer replica and then, from the same backlog, by two (separate
 * processes, one connection each, as service replicas are). Each event is applied as a service
 * applies one: applyOnce (inbox row and effect row in one Postgres transaction). Reports the drain
 * rate of each and their ratio (target: two replicas at least 1.6 times one). The rate is taken from
 * the first 2% applied to the last, so process start-up is left out.
 *   NATS_URL=… DATABASE_URL=… node -r @swc-node/register bench/events-scaling.ts [--events N] [--tenants N] [--quick] [--no-record]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { ChildProcess, spawn } from 'node:child_process';
import { EventEnvelope } from '@ca/contracts';
import { EVENT_PARTITIONS, JetStreamEventBus, applyOnce, inboxTableSql } from '@ca/messaging';
import { connect } from 'nats';
import { DataSource } from 'typeorm';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { cpuMsByCommand, machineBusyCpuMs, processCpuMs } from './lib/process-cpu';
import { runMain } from './lib/proc';
import { report } from './lib/report';
import { int } from './lib/stats';

const USAGE = `usage: node -r @swc-node/register bench/events-scaling.ts [--events N] [--tenants N] [--quick] [--no-record]
  --events    backlog size (default 50000; --quick: 5000)
  --tenants   tenants the events are spread over (default 200)
Needs NATS_URL and DATABASE_URL (defaults nats://127.0.0.1:4222, postgres://postgres@127.0.0.1:5432/postgres).`;

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A replica: subscribes as `durable` and applies every event once into `schema`, until killed. */
async function worker(
  streamName: string,
  subjectPrefix: string,
  durable: string,
  schema: string,
): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  const bus = await JetStreamEventBus.connect(nc, { streamName, subjectPrefix });
  const dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 4 }).initialize();
  await bus.subscribe(durable, async (event) => {
    await applyOnce(dataSource, schema, event, async (m) => {
      await m.query(`INSERT INTO ${schema}.applied (event_id) VALUES ($1)`, [event.id]);
    });
  });
  process.on(
    'SIGTERM',
    () =>
      void bus
        .close()
        .then(() => nc.close())
        .finally(() => process.exit(0)),
  );
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    events: { type: 'string' },
    tenants: { type: 'string' },
  });
  const total = intOption(values.events, 'events', quick ? 5_000 : 50_000);
  const tenantCount = intOption(values.tenants, 'tenants', 200);
  const id = randomBytes(4).toString('hex');
  const streamName = `BENCH_EVENTS_${id.toUpperCase()}`;
  const subjectPrefix = `bench.${id}`;
  const nc = await connect({ servers: natsUrl });
  const bus = await JetStreamEventBus.connect(nc, { streamName, subjectPrefix });
  const dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 2 }).initialize();
  const schemas = [1, 2].map((replicas) => `bench_events_${id}_${replicas}`);
  const children: ChildProcess[] = [];
  try {
    for (const schema of schemas) {
      await dataSource.query(`CREATE SCHEMA ${schema}`);
      for (const sql of inboxTableSql(schema)) await dataSource.query(sql);
      await dataSource.query(`CREATE TABLE ${schema}.applied (event_id uuid NOT NULL)`);
    }
    const tenants = Array.from({ length: tenantCount }, () => randomUUID());
    const events: EventEnvelope[] = Array.from({ length: total }, (_, i) => {
      const tenantId = tenants[i % tenantCount];
      return {
        id: randomUUID(),
        type: 'bench.happened',
        tenantId,
        occurredAt: new Date().toISOString(),
        payload: { tenantId, n: i },
      };
    });
    const publishStart = Date.now();
    for (let i = 0; i < events.length; i += 500) await bus.publishBatch(events.slice(i, i + 500));
    process.stdout.write(`published ${total} events in ${Date.now() - publishStart} ms\n`);

    const rows: string[][] = [];
    const rates: number[] = [];
    for (const [index, replicas] of [1, 2].entries()) {
      const schema = schemas[index];
      const durable = `drain-${replicas}`;
      for (let r = 0; r < replicas; r++) {
        const child = spawn(process.execPath, ['-r', '@swc-node/register', __filename], {
          env: {
            ...process.env,
            EVENTS_SCALING_WORKER: JSON.stringify({ streamName, subjectPrefix, durable, schema }),
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        children.push(child);
      }
      const applied = async () =>
        Number((await dataSource.query(`SELECT count(*) AS n FROM ${schema}.applied`))[0].n);
      const from = Math.ceil(total * 0.02);
      let t0 = 0;
      let n0 = 0;
      let cpu0 = cpuSnapshot(children);
      for (;;) {
        const n = await applied();
        if (t0 === 0 && n >= from) [t0, n0, cpu0] = [Date.now(), n, cpuSnapshot(children)];
        if (n >= total) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const seconds = (Date.now() - t0) / 1000;
      const busy = coresBusy(cpu0, cpuSnapshot(children), seconds);
      const rate = (total - n0) / seconds;
      rates.push(rate);
      rows.push([
        `${replicas} replica${replicas > 1 ? 's' : ''}`,
        int(total - n0),
        seconds.toFixed(1),
        int(rate),
        busy.replicas,
        busy.nats,
        busy.postgres,
        busy.machine,
      ]);
      for (const child of children.splice(0)) child.kill('SIGTERM');
      process.stdout.write(`${replicas} replica(s): ${int(rate)} events/s\n`);
    }
    const ratio = rates[1] / rates[0];
    report(
      {
        title: `events scaling: ${int(total)} events over ${tenantCount} tenants, 1 vs 2 consumer replicas`,
        command: `npm run bench -- events-scaling${quick ? ' --quick' : ''}`,
        machine: machineInfo(),
        settings: [
          `JetStream (${natsUrl}), ${EVENT_PARTITIONS} partitions, one event in flight per partition; each event applied with applyOnce on Postgres`,
          'Peer measured in the same run: the same backlog drained by 1 replica, then by 2 (separate processes)',
        ],
        tables: [
          {
            headers: [
              'consumers',
              'events timed',
              'seconds',
              'events/s',
              'cores busy: replicas',
              'NATS',
              'Postgres',
              'whole machine',
            ],
            rows: [...rows, ['ratio 2 / 1', '', '', ratio.toFixed(2), '', '', '', '']],
          },
        ],
        notes: [
          `Target: two replicas at least 1.6 times one; measured ${ratio.toFixed(2)}.`,
          `Cores busy are CPU seconds per second of the timed window (this machine has ${cpus().length}): when the whole machine is near all of them with one replica, a second replica has no core to run on, and the ratio measures the machine, not the consumers.`,
          'Publisher, both replicas, NATS and Postgres run on the same machine.',
        ],
      },
      record,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const schema of schemas)
      await dataSource.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(streamName).catch(() => undefined);
    await nc.close();
    await dataSource.destroy();
  }
}

interface CpuSnapshot {
  replicas: number;
  byCommand: Record<string, number>;
  machine: number;
}

/** CPU ms used so far by the replicas, NATS, Postgres and the whole machine. */
function cpuSnapshot(children: readonly ChildProcess[]): CpuSnapshot {
  return {
    replicas: children.reduce((sum, child) => sum + (processCpuMs(child.pid ?? -1) ?? 0), 0),
    byCommand: cpuMsByCommand(['nats-server', 'postgres']),
    machine: machineBusyCpuMs() ?? 0,
  };
}

/** Cores kept busy between two snapshots `seconds` apart, as text with one decimal. */
function coresBusy(before: CpuSnapshot, after: CpuSnapshot, seconds: number) {
  const cores = (ms: number) => (ms / 1000 / seconds).toFixed(2);
  return {
    replicas: cores(after.replicas - before.replicas),
    nats: cores(after.byCommand['nats-server'] - before.byCommand['nats-server']),
    postgres: cores(after.byCommand.postgres - before.byCommand.postgres),
    machine: cores(after.machine - before.machine),
  };
}

const workerSettings = process.env.EVENTS_SCALING_WORKER;
if (workerSettings) {
  const { streamName, subjectPrefix, durable, schema } = JSON.parse(workerSettings) as Record<string, string>;
  void worker(streamName, subjectPrefix, durable, schema);
} else runMain(main);
