import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { documentErrorResponses } from './error-responses';
import { describeRequestBodies } from './request-bodies.openapi';

/** docs/api.md#openapi-and-health: the OpenAPI 3.1.0 description, generated from the code. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('CA Manager administrative API')
    .setDescription(
      'Multi-tenant private certificate authority: initialize a root CA, issue, renew, revoke and list certificates.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  describeRequestBodies();
  const document = SwaggerModule.createDocument(app, config);
  documentErrorResponses(document);
  return document;
}

/** Serves the document at /openapi.json and a browsable view at /docs. */
export function mountOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
}
