import { AddressInfo } from 'node:net';
import { Agent, Server, createServer, request } from 'node:http';
import { HttpLimits } from '@ca/config';
import { ClientGate, clientAddressOf } from './client-fairness';

const limits: HttpLimits = {
  maxConnections: 100,
  maxConnectionsPerClient: 10,
  requestsPerClientPerSecond: 5,
  trustedProxies: ['127.0.0.9'],
  headersTimeoutSeconds: 5,
  requestTimeoutSeconds: 5,
  keepAliveTimeoutSeconds: 5,
};

describe('ClientGate request-rate cap', () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(clientAddressOf(req));
      res.end('ok');
    });
    new ClientGate(limits).install(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (localAddress: string, headers: Record<string, string> = {}, agent?: Agent) =>
    new Promise<{ status: number; retryAfter?: string }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', localAddress, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
      });
      req.on('error', reject);
      req.end();
    });

  it('answers a client past its rate with 429 and Retry-After before the handler, and serves another', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => get('127.0.0.2', {}, agent)));
    agent.destroy();
    const refused = answers.filter((a) => a.status === 429);
    // Five in the bucket, and at most a few more refilled while the twelve went out.
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(refused[0].retryAfter).toBe('1');
    expect(seen.filter((address) => address.endsWith('127.0.0.2')).length).toBe(12 - refused.length);
    expect((await get('127.0.0.3')).status).toBe(200);
  });

  it('counts the clients of a trusted proxy by their forwarded address, not the proxy', async () => {
    const forwarded = (client: string) => get('127.0.0.9', { 'x-forwarded-for': client });
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push((await forwarded('198.51.100.1')).status);
    expect(answers.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect((await forwarded('198.51.100.2')).status).toBe(200);
    expect(seen.at(-1)).toBe('198.51.100.2');
  });
});
