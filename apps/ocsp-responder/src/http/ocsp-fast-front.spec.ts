import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo, Socket, connect } from 'node:net';
import { OcspAnswer } from '../ocsp/ocsp.responder';
import { installOcspFastFront } from './ocsp-fast-front';
import { SimpleOcspRequest } from './ocsp-request-head';

/**
 * The front on a real Node server: what it answers itself ("fast", body FAST) and what reaches
 * Node's handler ("node", body echoing what Node read), byte by byte, in packets, pipelined,
 * kept alive, closed.
 */
const FAST: OcspAnswer = {
  der: Buffer.from('FAST'),
  cache: { etag: '"f"', thisUpdate: new Date(), nextUpdate: new Date(Date.now() + 3_600_000) },
};
const POST = (body = 'abc', extra = '') =>
  `POST /v1/tenants/t1/ocsp HTTP/1.1\r\nHost: x\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;

interface Harness {
  server: Server;
  port: number;
  /** Requests the front was asked about. */
  asked: SimpleOcspRequest[];
  /** Requests Node's handler saw, as `METHOD url body`. */
  seenByNode: string[];
  fastAnswers: string[];
  /** What the front answers (FAST by default; undefined sends the request to Node). */
  answer: OcspAnswer | undefined;
}

async function start(): Promise<Harness> {
  const harness = { asked: [], seenByNode: [], fastAnswers: [], answer: FAST } as unknown as Harness;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = `${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`;
      harness.seenByNode.push(seen);
      res.setHeader('Content-Length', Buffer.byteLength(seen));
      res.end(seen);
    });
  });
  installOcspFastFront(
    server,
    (request) => {
      harness.asked.push(request);
      return harness.answer;
    },
    (method) => harness.fastAnswers.push(method),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  harness.server = server;
  harness.port = (server.address() as AddressInfo).port;
  return harness;
}

/** A raw client: sends what it is given, collects everything, knows when the server closed. */
class Client {
  readonly socket: Socket;
  received = '';
  closed = false;
  private readonly closedPromise: Promise<void>;

  constructor(port: number) {
    this.socket = connect({ port, host: '127.0.0.1', noDelay: true });
    this.socket.on('data', (d: Buffer) => (this.received += d.toString('latin1')));
    this.socket.on('error', () => undefined);
    this.closedPromise = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  async send(...packets: string[]): Promise<void> {
    for (const packet of packets) {
      this.socket.write(packet);
      await pause(15);
    }
  }

  /** Waits until `count` answers have arrived (each ends with its body, FAST or an echo). */
  async answers(count: number): Promise<string[]> {
    for (let i = 0; i < 200 && splitAnswers(this.received).length < count; i++) await pause(10);
    return splitAnswers(this.received);
  }

  closedByServer(timeoutMs = 2_000): Promise<boolean> {
    return Promise.race([this.closedPromise.then(() => true), pause(timeoutMs).then(() => false)]);
  }

  end(): void {
    this.socket.destroy();
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

function splitAnswers(text: string): string[] {
  const answers: string[] = [];
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) return answers;
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(rest.slice(0, headEnd))?.[1] ?? 0);
    if (rest.length < headEnd + 4 + length) return answers;
    answers.push(rest.slice(0, headEnd + 4 + length));
    rest = rest.slice(headEnd + 4 + length);
  }
}

const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);

describe('installOcspFastFront', () => {
  let h: Harness;
  const clients: Client[] = [];
  const client = () => {
    const c = new Client(h.port);
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    h = await start();
  });

  afterEach(async () => {
    clients.splice(0).forEach((c) => c.end());
    if (h.server.listening) await new Promise((resolve) => h.server.close(resolve));
  });

  it('answers a whole simple OCSP POST itself, once, and counts it', async () => {
    const c = client();
    await c.send(POST('req'));
    const [answer] = await c.answers(1);
    expect(bodyOf(answer)).toBe('FAST');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n');
    expect(h.asked).toEqual([{ method: 'POST', tenantId: 't1', body: Buffer.from('req'), keepAlive: true }]);
    expect(h.seenByNode).toEqual([]);
    expect(h.fastAnswers).toEqual(['POST']);
  });

  it('answers several requests on one kept-alive connection', async () => {
    const c = client();
    // Each request after the previous answer: a loaded machine may otherwise deliver two packets in
    // one read, which is pipelining, and that goes to Node by design.
    await c.send(POST('one'));
    await c.answers(1);
    await c.send(POST('two'));
    await c.answers(2);
    await c.send('GET /v1/tenants/t1/ocsp/MEMw HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await c.answers(3)).map(bodyOf)).toEqual(['FAST', 'FAST', 'FAST']);
    expect(h.fastAnswers).toEqual(['POST', 'POST', 'GET']);
    expect(c.closed).toBe(false);
  });

  it('hands a kept-alive connection to Node when its next request is not one it answers', async () => {
    const c = client();
    // The first answered before the next is sent, as above: merged into one read, the three would
    // be a pipeline, which goes to Node whole by design.
    await c.send(POST('one'));
    await c.answers(1);
    await c.send('GET /health HTTP/1.1\r\nHost: x\r\n\r\n', POST('three'));
    expect((await c.answers(3)).map(bodyOf)).toEqual([
      'FAST',
      'GET /health ',
      'POST /v1/tenants/t1/ocsp three',
    ]);
  });

  it('hands a request split byte by byte to Node, which reads it whole', async () => {
    const c = client();
    await c.send(...POST('split body').split(''));
    expect((await c.answers(1)).map(bodyOf)).toEqual(['POST /v1/tenants/t1/ocsp split body']);
    expect(h.asked).toEqual([]);
  });

  it('hands a request whose body comes in a later packet to Node, bytes in order', async () => {
    const c = client();
    const request = POST('0123456789');
    await c.send(request.slice(0, -10), request.slice(-10, -5), request.slice(-5));
    expect((await c.answers(1)).map(bodyOf)).toEqual(['POST /v1/tenants/t1/ocsp 0123456789']);
  });

  it('hands pipelined requests to Node, which answers them in order', async () => {
    const c = client();
    await c.send(POST('first') + POST('second'));
    expect((await c.answers(2)).map(bodyOf)).toEqual([
      'POST /v1/tenants/t1/ocsp first',
      'POST /v1/tenants/t1/ocsp second',
    ]);
  });

  it.each([
    ['naming an unknown serial', { ...FAST, unknown: true }],
    ['not cacheable', { der: FAST.der }],
  ])('never sends an answer %s itself: Node answers it', async (_case, answer) => {
    h.answer = answer as OcspAnswer;
    const c = client();
    await c.send(POST('fresh'));
    expect((await c.answers(1)).map(bodyOf)).toEqual(['POST /v1/tenants/t1/ocsp fresh']);
    expect(h.fastAnswers).toEqual([]);
  });

  it('hands a request to Node when the answer is not in memory', async () => {
    h.answer = undefined;
    const c = client();
    await c.send(POST('cold'));
    expect((await c.answers(1)).map(bodyOf)).toEqual(['POST /v1/tenants/t1/ocsp cold']);
    expect(h.asked).toHaveLength(1);
    expect(h.fastAnswers).toEqual([]);
  });

  it('hands a request to Node when finding the answer throws, and keeps serving', async () => {
    const answered = h.answer;
    h.answer = {
      get der(): Buffer {
        throw new Error('broken cache');
      },
    } as unknown as OcspAnswer;
    const c = client();
    await c.send(POST('boom'));
    expect((await c.answers(1)).map(bodyOf)).toEqual(['POST /v1/tenants/t1/ocsp boom']);
    h.answer = answered;
    const next = client();
    await next.send(POST());
    expect((await next.answers(1)).map(bodyOf)).toEqual(['FAST']);
  });

  it.each([
    [
      'a conditional GET',
      'GET /v1/tenants/t1/ocsp/MEMw HTTP/1.1\r\nHost: x\r\nIf-None-Match: "a"\r\n\r\n',
      'GET /v1/tenants/t1/ocsp/MEMw ',
    ],
    [
      'a chunked body',
      'POST /v1/tenants/t1/ocsp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
      'POST /v1/tenants/t1/ocsp abc',
    ],
  ])('hands %s to Node', async (_, request, expected) => {
    const c = client();
    await c.send(request);
    const [answer] = await c.answers(1);
    expect(bodyOf(answer)).toBe(expected);
    expect(h.asked).toEqual([]);
  });

  it('hands HEAD to Node', async () => {
    const c = client();
    await c.send('HEAD /v1/tenants/t1/ocsp/MEMw HTTP/1.1\r\nHost: x\r\n\r\n');
    await pause(50);
    expect(h.seenByNode).toEqual(['HEAD /v1/tenants/t1/ocsp/MEMw ']);
    expect(c.received).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n$/);
    expect(h.asked).toEqual([]);
  });

  it('hands an oversized body to Node', async () => {
    const c = client();
    const body = 'x'.repeat(70 * 1024);
    await c.send(POST(body));
    const [answer] = await c.answers(1);
    expect(bodyOf(answer)).toBe(`POST /v1/tenants/t1/ocsp ${body}`);
    expect(h.asked).toEqual([]);
  });

  it('hands garbage to Node, which answers 400 and closes', async () => {
    const c = client();
    await c.send('\x16\x03\x01 not http at all\r\n\r\n');
    expect(await c.closedByServer()).toBe(true);
    expect(c.received).toMatch(/^HTTP\/1\.1 400 Bad Request/);
  });

  it('closes after the answer for HTTP/1.0 without keep-alive', async () => {
    const c = client();
    await c.send(POST('old').replace('HTTP/1.1', 'HTTP/1.0'));
    expect(await c.closedByServer()).toBe(true);
    expect(c.received).toContain('\r\nConnection: close\r\n\r\nFAST');
    expect(c.received).not.toContain('Keep-Alive');
  });

  it('keeps an HTTP/1.0 connection that asks for keep-alive', async () => {
    const c = client();
    await c.send(POST('old', 'Connection: keep-alive\r\n').replace('HTTP/1.1', 'HTTP/1.0'));
    expect(bodyOf((await c.answers(1))[0])).toBe('FAST');
    expect(await c.closedByServer(200)).toBe(false);
  });

  it('closes after the answer when the client says Connection: close', async () => {
    const c = client();
    await c.send(POST('bye', 'Connection: close\r\n'));
    expect(await c.closedByServer()).toBe(true);
    expect(c.received).toContain('\r\nConnection: close\r\n\r\nFAST');
  });

  it("ends an idle kept-alive connection after the server's keepAliveTimeout", async () => {
    h.server.keepAliveTimeout = 300;
    const c = client();
    await c.send(POST());
    await c.answers(1); // a loaded machine answers later than the send's 15 ms pause
    expect(c.received).toContain('Keep-Alive: timeout=0\r\n');
    expect(await c.closedByServer(250)).toBe(false);
    // Within the timeout and one sweep of held connections (every second).
    expect(await c.closedByServer(1_500)).toBe(true);
  });

  it("ends a connection that sends nothing within the server's headersTimeout", async () => {
    h.server.headersTimeout = 300;
    const c = client();
    expect(await c.closedByServer(250)).toBe(false);
    expect(await c.closedByServer(1_500)).toBe(true);
    expect(c.received).toBe('');
  });

  it('lets server.close() finish with idle kept-alive connections it holds', async () => {
    const idle = client();
    await idle.send(POST());
    const fresh = client();
    await pause(20);
    const closed = new Promise((resolve) => h.server.close(resolve));
    expect(await Promise.race([closed.then(() => 'closed'), pause(1_000).then(() => 'hung')])).toBe('closed');
    expect(await idle.closedByServer()).toBe(true);
    expect(await fresh.closedByServer()).toBe(true);
  });
});
