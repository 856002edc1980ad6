import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { parseOcspResponse } from '@ca/pki';
import { CaCertificateStore } from '../ca-certificates/ca-certificate.store';
import { CrlStore } from '../crls/crl.store';
import { OcspHttp } from '../ocsp/ocsp.http';
import { OcspAnswer, OcspOverloadedError, OcspResponder } from '../ocsp/ocsp.responder';
import { publicSurfaceRouter } from './public-surface.router';

const TENANT = '3f1c2b4a-0d5e-4f6a-8b7c-9d0e1f2a3b4c';
/** What the driver throws when Postgres cannot be reached, or refuses the responder's role. */
const FAILURES = {
  'database down': Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  'role NOLOGIN': Object.assign(new Error('role "ocsp" is not permitted to log in'), { code: '28000' }),
  'CONNECT revoked': Object.assign(new Error('permission denied for database "ca"'), { code: '42501' }),
  'database dropped': Object.assign(new Error('database "ca" does not exist'), { code: '3D000' }),
};
let failure: Error = FAILURES['database down'];

describe('public surface router', () => {
  let server: Server;
  let base: string;
  /** What the fake responder does on the full path. */
  let answer: () => Promise<OcspAnswer>;

  beforeAll(async () => {
    const down = async () => {
      throw failure;
    };
    const responder = {
      answerFromMemory: () => undefined,
      answer: () => answer(),
    } as unknown as OcspResponder;
    const router = publicSurfaceRouter({
      caCertificates: { find: down, findOrWait: down } as unknown as CaCertificateStore,
      crls: { find: down } as unknown as CrlStore,
      rootCrls: { find: down } as unknown as CrlStore,
      addedCaCrls: { find: down } as unknown as CrlStore,
      ocsp: new OcspHttp(responder),
    });
    server = createServer((req, res) => {
      if (!router(req, res)) {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/tenants/${TENANT}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each(Object.keys(FAILURES) as (keyof typeof FAILURES)[])(
    '%s: answers 503 with Retry-After, not 500, for ca.pem, ca.crt, crl, and OCSP with tryLater',
    async (name) => {
      failure = FAILURES[name];
      answer = async () => {
        throw failure;
      };
      for (const [path, init] of [
        ['/ca.pem', {}],
        ['/ca.crt', {}],
        ['/crl', {}],
        ['/ocsp/MAMCAQA', {}],
        ['/ocsp', { method: 'POST', body: Buffer.from('3003020100', 'hex') }],
      ] as const) {
        const response = await fetch(`${base}${path}`, init);
        expect({ path, status: response.status, retryAfter: response.headers.get('retry-after') }).toEqual({
          path,
          status: 503,
          retryAfter: '5',
        });
        const body = new Uint8Array(await response.arrayBuffer());
        if (path.startsWith('/ocsp')) {
          // RFC 6960 4.2.1: tryLater, for a client that reads the body whatever the status.
          expect(response.headers.get('content-type')).toBe('application/ocsp-response');
          expect(parseOcspResponse(body).responseStatus).toBe('tryLater');
        } else expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    },
  );

  it('sheds OCSP with 503 and Retry-After when too many answers are being signed', async () => {
    answer = async () => {
      throw new OcspOverloadedError();
    };
    const response = await fetch(`${base}/ocsp`, { method: 'POST', body: Buffer.from('3003020100', 'hex') });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
  });

  it('keeps other failures an OCSP internalError, HTTP 200', async () => {
    answer = async () => {
      throw new Error('boom');
    };
    const response = await fetch(`${base}/ocsp`, { method: 'POST', body: Buffer.from('3003020100', 'hex') });
    expect(response.status).toBe(200);
    expect(parseOcspResponse(new Uint8Array(await response.arrayBuffer())).responseStatus).toBe(
      'internalError',
    );
  });

  it('answers 405 with Allow to other methods on the OCSP paths', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const onPost = await fetch(`${base}/ocsp`, { method, body: 'x' });
      expect([onPost.status, onPost.headers.get('allow')]).toEqual([405, 'POST']);
      const onGet = await fetch(`${base}/ocsp/MAMCAQA`, { method });
      expect([onGet.status, onGet.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    }
  });
});
