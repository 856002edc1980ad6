import 'reflect-metadata';
import { connect } from 'node:net';
import { parseOcspResponse } from '@ca/pki';
import { OcspHttp } from '@ca/ocsp-responder/testing';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually } from './support/http';
import { eventuallyRevokedInOcsp, ocspRequestDer } from './support/pki';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The responder's fast front (apps/ocsp-responder/src/http/ocsp-fast-front.ts) against Node's
 * HTTP path on the same port: the same request, once as the front answers it and once with a
 * header that sends it to Node, gives the same bytes (status line, headers in order, body) but
 * the Date; keep-alive and close as HTTP says; a revocation changes the fast answer at once.
 */
jest.setTimeout(60_000);

/** A header the front does not know: the request goes to Node's HTTP server unchanged. */
const VIA_NODE = 'X-Test-Path: node\r\n';

interface RawAnswer {
  text: string;
  closedByServer: boolean;
}

/** One request on a fresh connection; the answer read whole, and whether the server then closed. */
function exchange(port: number, request: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => socket.write(request));
    let text = '';
    const settle = (closedByServer: boolean) => {
      socket.destroy();
      resolve({ text, closedByServer });
    };
    const timer = setTimeout(() => settle(false), 300);
    socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
    socket.on('end', () => {
      clearTimeout(timer);
      settle(true);
    });
    socket.on('error', reject);
  });
}

/** Date (and a max-age that may have crossed a second boundary) normalized. */
const comparable = (text: string) =>
  text.replace(/\r\nDate: [^\r]+/, '\r\nDate: -').replace(/max-age=\d+/, 'max-age=-');

const bodyOf = (text: string) => Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1');

describe.each(systemModes('OCSP fast front suite'))('OCSP fast front (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let port: number;
  let serial: string;
  let certificateId: string;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    tenant = await createTenant(sut);
    port = Number(new URL(sut.pkiUrl).port);
    const issued = await tenant.issue(issueBody({ clientId: 'fast-front' }));
    serial = issued.serialNumber;
    certificateId = issued.certificateId;
  });

  afterAll(async () => {
    await sut?.stop();
  });

  const post = (head: string, der: Buffer, version = '1.1') =>
    Buffer.concat([
      Buffer.from(
        `POST /v1/tenants/${tenant.tenantId}/ocsp HTTP/${version}\r\nHost: pki\r\n${head}` +
          `Content-Type: application/ocsp-request\r\nContent-Length: ${der.length}\r\n\r\n`,
      ),
      der,
    ]);
  const get = (head: string, der: Buffer, version = '1.1') =>
    Buffer.from(
      `GET /v1/tenants/${tenant.tenantId}/ocsp/${der.toString('base64url')} HTTP/${version}\r\n` +
        `Host: pki\r\n${head}\r\n`,
    );

  /** Asks until the front answers from memory, then compares its answer with Node's. */
  async function sameAnswers(request: (head: string) => Buffer): Promise<RawAnswer> {
    const front = jest.spyOn(OcspHttp.prototype, 'simpleFromMemory');
    const fromMemory = () => front.mock.results.some((r) => r.value !== undefined);
    // The first asks sign and cache the answer and read the status row.
    await eventually(
      async () => {
        front.mockClear();
        await exchange(port, request(''));
        return fromMemory() || undefined;
      },
      5_000,
      'an answer from memory',
    );
    front.mockClear();
    const fast = await exchange(port, request(''));
    // The front answered this one itself, from memory.
    expect(front.mock.results.map((r) => r.value !== undefined)).toEqual([true]);
    front.mockClear();
    const node = await exchange(port, request(VIA_NODE));
    expect(front).not.toHaveBeenCalled();
    front.mockRestore();
    expect(comparable(fast.text)).toBe(comparable(node.text));
    expect(fast.closedByServer).toBe(node.closedByServer);
    expect(parseOcspResponse(new Uint8Array(bodyOf(fast.text))).responseStatus).toBe('successful');
    return fast;
  }

  it.each([
    ['POST, HTTP/1.1', (d: Buffer) => (h: string) => post(h, d)],
    ['POST, HTTP/1.1, Connection: close', (d: Buffer) => (h: string) => post(`${h}Connection: close\r\n`, d)],
    ['POST, HTTP/1.0', (d: Buffer) => (h: string) => post(h, d, '1.0')],
    [
      'POST, HTTP/1.0 keep-alive',
      (d: Buffer) => (h: string) => post(`${h}Connection: keep-alive\r\n`, d, '1.0'),
    ],
    ['GET, HTTP/1.1', (d: Buffer) => (h: string) => get(h, d)],
    ['GET, HTTP/1.0', (d: Buffer) => (h: string) => get(h, d, '1.0')],
  ])('answers %s with the bytes of the Node path', async (name, request) => {
    const answer = await sameAnswers(request(ocspRequestDer(tenant.caDer, serial)));
    const keepAlive = !name.endsWith('close') && (!name.includes('1.0') || name.includes('keep-alive'));
    expect(answer.closedByServer).toBe(!keepAlive);
    expect(answer.text).toContain(keepAlive ? 'Connection: keep-alive\r\n' : 'Connection: close\r\n');
  });

  it('answers revoked as soon as the revocation lands, on both paths', async () => {
    const der = ocspRequestDer(tenant.caDer, serial);
    await sameAnswers((h) => post(h, der));
    const revoke = await tenant.post(`/v1/certificates/${certificateId}/revoke`, {
      reason: 'key lost',
      reasonCode: 'KeyCompromise',
    });
    expect(revoke.status).toBe(200);
    await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, serial);
    const answer = await sameAnswers((h) => post(h, der));
    const response = parseOcspResponse(new Uint8Array(bodyOf(answer.text)));
    expect(response.responseStatus === 'successful' && response.responses[0].status.kind).toBe('revoked');
  });
});
