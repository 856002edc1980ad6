import { NestFactory } from '@nestjs/core';
import { KeyCustody, LocalKeyCustody, loadOrCreateLocalKek } from '@ca/custody';
import { OutboxRelay, RpcReplyInterceptor, RpcTraceInterceptor } from '@ca/messaging';
import { NestPinoLogger, certificateMetrics, messagingMetrics } from '@ca/observability';
import { openSchemaDataSource } from '@ca/persistence';
import { ConfigError } from '@ca/config';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { CertificateAuthorityEntity } from './certificate-authority/certificate-authority.entity';
import { CertificateEntity } from './certificates/certificate.entity';
import { ExpiryReporter } from './certificates/expiry-report';
import { IssuanceModule } from './issuance.module';
import { ISSUANCE_SCHEMA } from './issuance.schema';
import { ISSUANCE_MIGRATIONS } from './migrations';

/** Starts the issuance context on the given runtime (embedded or distributed alike). */
export async function startIssuance(runtime: ServiceRuntime): Promise<RunningService> {
  const { config, messaging } = runtime;
  const custody = openCustody(runtime);
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: ISSUANCE_SCHEMA,
    entities: [CertificateAuthorityEntity, CertificateEntity],
    migrations: ISSUANCE_MIGRATIONS,
  });
  const relay = new OutboxRelay(dataSource, ISSUANCE_SCHEMA, messaging.events);
  const app = await NestFactory.createMicroservice(
    IssuanceModule.register({
      dataSource,
      custody,
      custodyKind: config.keyCustody,
      relay,
      pkiPublicUrl: config.pkiPublicUrl,
      blobs: messaging.blobs,
    }),
    {
      ...messaging.serverOptions('issuance'),
      logger: new NestPinoLogger(runtime.logger),
    },
  );
  // Trace first: it continues the caller's trace around the whole handling, replies included.
  app.useGlobalInterceptors(new RpcTraceInterceptor('issuance'), new RpcReplyInterceptor(messaging.blobs));
  await app.listen();
  relay.start();
  const expiry = new ExpiryReporter(dataSource);
  const unregisterGauges = [
    certificateMetrics.expiring.register(() => expiry.gaugeSamples()),
    messagingMetrics.outboxBacklog.register(async () => [
      { labels: { service: 'issuance' }, value: await relay.backlog() },
    ]),
  ];
  return {
    name: 'issuance',
    ready: async () => dataSource.isInitialized && (await dataSource.query('SELECT 1')) !== undefined,
    close: once(async () => {
      for (const unregister of unregisterGauges) unregister();
      await app.close();
      await relay.stop();
      await dataSource.destroy();
    }),
  };
}

function openCustody({ config }: ServiceRuntime): KeyCustody {
  if (config.keyCustody === 'pkcs11')
    throw new ConfigError('KEY_CUSTODY', 'pkcs11 custody is not available in this build yet');
  try {
    const kek = loadOrCreateLocalKek({
      kekBase64: config.caKek,
      dataDir: config.dataDir,
      embedded: config.embedded,
    });
    return new LocalKeyCustody(kek);
  } catch (error) {
    // One clear line naming the setting (CONTRACT section 2), whatever custody found wrong.
    const problem = error instanceof Error ? error.message.replace(/^CA_KEK:?\s*/, '') : 'is not usable';
    throw new ConfigError('CA_KEK', problem);
  }
}
