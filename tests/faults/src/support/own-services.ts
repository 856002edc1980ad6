import { TestDatabase, createTestDatabase } from '@ca/persistence/testing';
import { DistributedSystem, SystemOptions } from './distributed-system';
import { OwnNatsServer } from './nats-server';
import { LogDir } from './real-services';

/** A fault suite's system: the services as processes on a database and a NATS server of its own. */
export interface OwnServices {
  database: TestDatabase;
  nats: OwnNatsServer;
  system: DistributedSystem;
}

export async function startOnOwnServices(logs: LogDir, options: SystemOptions = {}): Promise<OwnServices> {
  const database = await createTestDatabase('postgres');
  const nats = await OwnNatsServer.start(logs.path);
  const system = await DistributedSystem.start(
    { databaseUrl: database.url, natsUrl: nats.url },
    logs.path,
    options,
  );
  return { database, nats, system };
}

/** Stops what `startOnOwnServices` started, as far as it got. */
export async function stopOwnServices(logs: LogDir, services: Partial<OwnServices>): Promise<void> {
  await services.system?.stop();
  await services.nats?.remove();
  await services.database?.drop();
  logs.close();
}
