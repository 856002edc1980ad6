import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { CaInitializedPayload, EventEnvelope, EventType } from '@ca/contracts';
import { routeByType } from '@ca/messaging';
import { NestPinoLogger } from '@ca/observability';
import { openSchemaDataSource } from '@ca/persistence';
import { RunningService, ServiceRuntime } from '@ca/runtime';
import { CaCertificateStore } from './ca-certificates/ca-certificate.store';
import { OCSP_MIGRATIONS } from './migrations';
import { OcspResponderModule } from './ocsp-responder.module';
import { OCSP_SCHEMA } from './ocsp.schema';

/** Durable consumer name: the responder's position in the event stream. */
export const OCSP_CONSUMER = 'ocsp-responder';

/**
 * Starts the public surface on PKI_PORT. It answers from its own schema only, so it keeps
 * serving while the gateway and issuance are down.
 */
export async function startOcspResponder(runtime: ServiceRuntime): Promise<RunningService> {
  const { config, messaging } = runtime;
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: OCSP_SCHEMA,
    entities: [],
    migrations: OCSP_MIGRATIONS,
  });
  const store = new CaCertificateStore(dataSource);
  const subscription = await messaging.events.subscribe(
    OCSP_CONSUMER,
    routeByType({ [EventType.CaInitialized]: (e) => store.apply(e as EventEnvelope<CaInitializedPayload>) }),
  );
  const ready = async () => dataSource.isInitialized && (await dataSource.query('SELECT 1')) !== undefined;
  const app = await NestFactory.create<NestExpressApplication>(
    OcspResponderModule.register({ store, ready }),
    {
      logger: new NestPinoLogger(runtime.logger),
    },
  );
  app.disable('x-powered-by');
  await app.listen(config.pkiPort, config.host);
  return {
    name: 'ocsp-responder',
    ready,
    close: async () => {
      await app.close();
      await subscription.stop();
      await dataSource.destroy();
    },
  };
}
