import { Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { AcmeProblem } from '../protocol/acme-problem';
import { ChallengeValidators } from './challenge-validators';
import { TargetResolver } from './target-resolver';

const listen = async (handler: (host: string, url: string, res: ServerResponse) => void): Promise<Server> => {
  const server = createServer((req, res) => handler(req.headers.host ?? '', req.url ?? '', res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
};
const portOf = (server: Server) => (server.address() as AddressInfo).port;
const close = (server: Server) => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
};
const problemOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error instanceof AcmeProblem ? { type: error.type, detail: error.detail } : String(error);
  }
  return undefined;
};

describe('http-01 validation (RFC 8555 8.3, 10.2)', () => {
  const resolver = new TargetResolver({
    overrides: new Map([
      ['*.example.test', '127.0.0.1'],
      ['elsewhere.test', '127.0.0.1'],
    ]),
    allowPrivateTargets: true,
  });
  const target = {
    name: 'www.example.test',
    token: 'tok',
    keyAuthorization: 'tok.thumb',
    allowedDnsSuffixes: ['example.test'],
  };
  const validators = (http01Port: number, deadlineMs?: number) =>
    new ChallengeValidators(resolver, { http01Port, tlsAlpn01Port: 1 }, async () => [], deadlineMs);

  it('follows a redirect to a name inside the policy, not to one outside it', async () => {
    const hosts: string[] = [];
    const server = await listen((host, url, res) => {
      hosts.push(host.replace(/:\d+$/, ''));
      const to = {
        '/.well-known/acme-challenge/in': 'other.example.test',
        '/.well-known/acme-challenge/out': 'elsewhere.test',
      }[url];
      if (to) res.writeHead(302, { location: `http://${to}:${portOf(server)}/answer` }).end();
      else res.end('tok.thumb');
    });
    try {
      const port = portOf(server);
      await expect(validators(port).validate('http-01', { ...target, token: 'in' })).resolves.toBeUndefined();
      expect(hosts).toEqual(['www.example.test', 'other.example.test']);

      hosts.length = 0;
      const outside = await problemOf(validators(port).validate('http-01', { ...target, token: 'out' }));
      expect(outside).toEqual({
        type: 'connection',
        detail: expect.stringContaining("outside this tenant's issuance policy"),
      });
      expect(hosts).toEqual(['www.example.test']);
    } finally {
      await close(server);
    }
  });

  it('gives up at the deadline on a target that answers a byte at a time, however long it goes on', async () => {
    const server = await listen((_host, _url, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => res.write('t'), 50);
      res.on('close', () => clearInterval(drip));
    });
    try {
      const outcome = await problemOf(validators(portOf(server), 400).validate('http-01', target));
      expect(outcome).toEqual({
        type: 'connection',
        detail: expect.stringContaining('did not finish within'),
      });
    } finally {
      await close(server);
    }
  });
});
