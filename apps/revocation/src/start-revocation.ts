import { CaInitializedPayload, EventEnvelope, EventType } from '@ca/contracts';
import { routeByType } from '@ca/messaging';
import { openSchemaDataSource } from '@ca/persistence';
import { RunningService, ServiceRuntime } from '@ca/runtime';
import { CrlIssuerRegistry } from './crl-issuers/crl-issuer.registry';
import { REVOCATION_MIGRATIONS } from './migrations';
import { REVOCATION_SCHEMA } from './revocation.schema';

export const REVOCATION_CONSUMER = 'revocation';

/** Starts the revocation context: a durable consumer of the event stream, no HTTP surface. */
export async function startRevocation(runtime: ServiceRuntime): Promise<RunningService> {
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: REVOCATION_SCHEMA,
    entities: [],
    migrations: REVOCATION_MIGRATIONS,
  });
  const issuers = new CrlIssuerRegistry(dataSource);
  const subscription = await runtime.messaging.events.subscribe(
    REVOCATION_CONSUMER,
    routeByType({
      [EventType.CaInitialized]: (e) => issuers.apply(e as EventEnvelope<CaInitializedPayload>),
    }),
  );
  return {
    name: 'revocation',
    ready: async () => dataSource.isInitialized && (await dataSource.query('SELECT 1')) !== undefined,
    close: async () => {
      await subscription.stop();
      await dataSource.destroy();
    },
  };
}
