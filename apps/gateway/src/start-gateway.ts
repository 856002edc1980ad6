import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { IssuanceApi } from '@ca/contracts';
import { NestPinoLogger } from '@ca/observability';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { loadOrCreateDevelopmentJwtKeys } from './auth/development-jwt-keys';
import { TokenVerifier } from './auth/token-verifier';
import { GatewayModule } from './gateway.module';
import { JsonBodyPipe } from './http/json-body.pipe';
import { requestIdMiddleware } from './http/request-id';
import { mountOpenApi } from './openapi/openapi';

/** Request bodies of this API are small; anything larger is refused before parsing (413). */
const BODY_LIMIT = '64kb';

/** Starts the administrative API on GATEWAY_PORT. */
export async function startGateway(runtime: ServiceRuntime): Promise<RunningService> {
  const { config, messaging } = runtime;
  const jwt =
    config.jwt.publicKeyPem || config.jwt.jwksUri
      ? config.jwt
      : { ...config.jwt, publicKeyPem: loadOrCreateDevelopmentJwtKeys(config.dataDir).publicKeyPem };
  const tokenVerifier = await TokenVerifier.create(jwt);
  const issuance = messaging.rpcClient<IssuanceApi>();
  const app = await NestFactory.create<NestExpressApplication>(
    GatewayModule.register({
      tokenVerifier,
      issuance,
      errorCatalogUrl: config.errorCatalogUrl,
      ready: async () => true,
    }),
    { logger: new NestPinoLogger(runtime.logger), bodyParser: false },
  );
  app.disable('x-powered-by');
  // First, so that even a body that cannot be parsed gets its request id (spec 7.1).
  app.use(requestIdMiddleware);
  app.useBodyParser('json', { limit: BODY_LIMIT, type: () => true, strict: false });
  app.useGlobalPipes(new JsonBodyPipe());
  mountOpenApi(app);
  await app.listen(config.gatewayPort, config.host);
  return {
    name: 'gateway',
    ready: async () => true,
    close: once(async () => {
      await app.close();
      await issuance.close();
    }),
  };
}
