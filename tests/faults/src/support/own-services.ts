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
  const started: Partial<OwnServices> = {};
  try {
    started.database = await createTestDatabase('postgres');
    started.nats = await OwnNatsServer.start(logs.path);
    started.system = await DistributedSystem.start(
      { databaseUrl: started.database.url, natsUrl: started.nats.url },
      logs.path,
      options,
    );
    return started as OwnServices;
  } catch (error) {
    // The suite's afterAll gets nothing to stop from a start that threw: stop what did start here,
    // or a NATS server would outlive the suite.
    await stopOwnServices(logs, started);
    throw error;
  }
}

/** Stops what `startOnOwnServices` started, as far as it got. */
export async function stopOwnServices(logs: LogDir, services: Partial<OwnServices>): Promise<void> {
  await services.system?.stop();
  await services.nats?.remove();
  await services.database?.drop();
  logs.close();
}
