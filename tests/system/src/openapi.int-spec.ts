import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DECORATORS } from '@nestjs/swagger/dist/constants';
import { GatewayDependencies, GatewayModule } from '@ca/gateway/testing';
import { http } from './support/http';
import { SystemUnderTest, startSystemUnderTest } from './support/system-under-test';

/**
 * The published OpenAPI description (docs/api.md#openapi-and-health) against the running gateway:
 * OpenAPI 3.1.0, every Nest route documented with its method and path and nothing documented that
 * the server does not answer, error answers (429 with Retry-After, 503, Problem Details) and the
 * File/PKCS#12 response fields. The document does not depend on the mode: embedded only.
 */
jest.setTimeout(60_000);

type Responses = Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
interface Operation {
  operationId: string;
  security?: unknown[];
  responses: Responses;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** `METHOD /path/{param}` of every handler of the gateway's controllers, read as Nest reads them. */
function nestRoutes(): string[] {
  const { controllers = [] } = GatewayModule.register({} as GatewayDependencies);
  // The console's files are not this API: left out of the description. (The ACME edge is no
  // controller at all: a middleware that speaks RFC 8555, docs/api.md#acme.)
  const described = controllers.filter(
    (controller) => Reflect.getMetadata(DECORATORS.API_EXCLUDE_CONTROLLER, controller)?.[0] !== true,
  );
  return described.flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype)
      .map((name) => prototype[name])
      .filter(
        (handler): handler is object =>
          typeof handler === 'function' && Reflect.hasMetadata(METHOD_METADATA, handler),
      )
      .map((handler) => {
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const path = `/${base}/${String(Reflect.getMetadata(PATH_METADATA, handler))}`
          .replace(/\/+/g, '/')
          .replace(/\/$/, '')
          .replace(/:(\w+)/g, '{$1}');
        return `${method} ${path}`;
      });
  });
}

const documentedOperations = (doc: OpenApiDocument) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );

describe('OpenAPI description (embedded)', () => {
  let sut: SystemUnderTest;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    sut = await startSystemUnderTest('embedded');
    const answer = await http(`${sut.gatewayUrl}/openapi.json`);
    expect(answer.status).toBe(200);
    doc = answer.json<OpenApiDocument>();
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('is OpenAPI 3.1.0', () => {
    expect(doc.openapi).toBe('3.1.0');
  });

  it('documents exactly the routes Nest serves, with the same methods and paths', () => {
    const documented = documentedOperations(doc).map((o) => `${o.method} ${o.path}`);
    const served = nestRoutes();
    expect(served).toContain('GET /v1/downloads/{token}');
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it('has every documented operation answered by the running server (no unknown-route 404)', async () => {
    const unknownRoute = await http(`${sut.gatewayUrl}/v1/no-such-route`);
    expect(unknownRoute.status).toBe(404); // the answer a missing route gives: plain JSON, not a problem
    expect(unknownRoute.headers.get('content-type')).not.toMatch(/problem/);
    for (const { method, path } of documentedOperations(doc)) {
      const url = `${sut.gatewayUrl}${path
        .replace('{certificateId}', '00000000-0000-4000-8000-000000000000')
        .replace('{token}', 'A'.repeat(64))}`;
      const answer = await http(url, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      const routeMissing =
        answer.status === 404 && !/problem\+json/.test(answer.headers.get('content-type') ?? '');
      expect({ operation: `${method} ${path}`, routeMissing }).toEqual({
        operation: `${method} ${path}`,
        routeMissing: false,
      });
    }
  });

  it('documents 429 with Retry-After and RateLimit-* headers on every rate-limited operation, and 503 as Problem Details', () => {
    const operations = documentedOperations(doc).filter((o) => !o.path.startsWith('/health/'));
    const rateLimited = operations.filter((o) => (o.operation.security ?? []).length > 0);
    expect(rateLimited.length).toBeGreaterThanOrEqual(9);
    for (const { operation } of rateLimited) {
      const tooMany = operation.responses['429'];
      expect({ op: operation.operationId, headers: Object.keys(tooMany?.headers ?? {}).sort() }).toEqual({
        op: operation.operationId,
        headers: [
          'RateLimit-Limit',
          'RateLimit-Policy',
          'RateLimit-Remaining',
          'RateLimit-Reset',
          'Retry-After',
        ],
      });
      const success = operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['202'];
      expect(Object.keys(success?.headers ?? {})).toContain('RateLimit-Remaining');
      expect(operation.responses['401']).toBeDefined();
      expect(operation.responses['403']).toBeDefined();
    }
    for (const { operation } of operations) {
      expect({
        op: operation.operationId,
        content: Object.keys(operation.responses['503']?.content ?? {}),
      }).toEqual({
        op: operation.operationId,
        content: ['application/problem+json'],
      });
    }
    expect(doc.components.schemas.ProblemDetails?.properties).toHaveProperty('requestId');
  });

  it('documents the download route and the File and PKCS#12 response fields', () => {
    const download = doc.paths['/v1/downloads/{token}']?.get;
    expect(download).toBeDefined();
    expect(download.security ?? []).toEqual([]);
    expect(Object.keys(download.responses['200'].content ?? {}).sort()).toEqual([
      'application/x-pem-file',
      'application/x-pkcs12',
    ]);
    expect(download.responses['404'].content).toHaveProperty(['application/problem+json']);
    const delivery = [
      'certificateDownloadUrl',
      'certificatePem',
      'chainPem',
      'downloadUrlExpiresAt',
      'password',
      'pfxBase64',
      'pfxDownloadUrl',
      'privateKeyDownloadUrl',
      'privateKeyPem',
    ];
    for (const schema of ['IssueCertificateResponseDoc', 'RenewCertificateResponseDoc']) {
      expect(Object.keys(doc.components.schemas[schema]?.properties ?? {})).toEqual(
        expect.arrayContaining(delivery),
      );
    }
  });

  it('documents pkcs12Profile on the v2 issue and renew bodies only, with its values and default', () => {
    const bodySchema = (path: string) => {
      const content = (
        doc.paths[path].post as unknown as { requestBody: { content: Record<string, unknown> } }
      ).requestBody.content['application/json'] as { schema: { $ref: string } };
      return doc.components.schemas[content.schema.$ref.split('/').pop()!];
    };
    for (const path of ['/v2/certificates', '/v2/certificates/{certificateId}/renew']) {
      expect(bodySchema(path).properties?.pkcs12Profile).toMatchObject({
        enum: ['modern', 'legacy'],
        default: 'modern',
        description: expect.stringMatching(/passwordProtected[\s\S]*legacy/),
      });
    }
    for (const path of ['/v1/certificates', '/v1/certificates/{certificateId}/renew']) {
      expect(bodySchema(path).properties).not.toHaveProperty('pkcs12Profile');
    }
  });

  it('documents the inventory operations with every parameter', () => {
    const parameters = (path: string) =>
      (doc.paths[path].get as unknown as { parameters: { name: string; in: string }[] }).parameters
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort();
    const filters = [
      'caId',
      'clientId',
      'expiresAfter',
      'expiresBefore',
      'issuedAfter',
      'issuedBefore',
      'q',
      'sort',
      'source',
      'status',
      'usage',
    ];
    expect(parameters('/v2/certificates')).toEqual([...filters, 'cursor', 'limit'].sort());
    expect(parameters('/v2/certificates/export')).toEqual(filters);
    for (const [method, path] of [
      ['get', '/v2/certificates/summary'],
      ['post', '/v2/certificates/revoke-matching'],
      ['get', '/v2/jobs/{jobId}'],
    ] as const) {
      expect(doc.paths[path]?.[method]).toBeDefined();
    }
  });
});
