import { createServer } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { applyHttpLimits } from './http-limits';

const limits = {
  maxConnections: 3,
  headersTimeoutSeconds: 1,
  requestTimeoutSeconds: 2,
  keepAliveTimeoutSeconds: 1,
};

describe('applyHttpLimits', () => {
  it('sets every limit on the server, timeouts in milliseconds', () => {
    const server = createServer();
    applyHttpLimits(server, limits);
    expect(server).toMatchObject({
      maxConnections: 3,
      headersTimeout: 1000,
      requestTimeout: 2000,
      keepAliveTimeout: 1000,
    });
  });

  it('cuts a connection that sends no request within the headers timeout (checked well before 30 s)', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    applyHttpLimits(server, limits);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      const started = Date.now();
      await new Promise((resolve) => socket.once('close', resolve));
      // Node alone would not cut it before its 30 s check; a loaded CI machine may take a few seconds.
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 25_000);
});
