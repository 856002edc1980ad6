import { AddressInfo, createServer } from 'node:net';
import { certificateMetrics } from '@ca/observability';
import { StartupServer, startHealthServer, startStartupServer } from './health.server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('health server of a service without an HTTP surface', () => {
  it('serves /metrics in the Prometheus text format beside the probes', async () => {
    const server = await startHealthServer('127.0.0.1', 0, async () => true);
    try {
      certificateMetrics.issued('renew');
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await metrics.text()).toMatch(/^ca_certificates_issued_total\{operation="renew"\} 1$/m);
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      expect((await fetch(`${base}/nothing`)).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names HEALTH_PORT when the port is taken, as a configuration error of one line', async () => {
    const taken = await startHealthServer('127.0.0.1', 0, async () => true);
    try {
      const { port } = taken.address() as AddressInfo;
      await expect(startHealthServer('127.0.0.1', port, async () => true)).rejects.toMatchObject({
        name: 'ConfigError',
        message: `HEALTH_PORT: port ${port} on 127.0.0.1 is already in use; set HEALTH_PORT to a free port`,
      });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('lets the service take its port over while a prober polls it over one kept-alive connection', async () => {
    const port = await freePort();
    let handedOver: Promise<string> | undefined;
    let answers = 0;
    // Node's close() ends only idle connections: one with a request in flight, or accepted with its
    // first request not read yet, stays, and a prober asking again within the keep-alive time-out
    // keeps it (and this 503) for ever. Here the service is ready while the third request is in flight.
    const startup: StartupServer = await startStartupServer('127.0.0.1', port, () => {
      if (++answers === 3) handedOver = startup.handOver().then(() => 'handed over');
      return { waitingFor: 'stream CA_EVENTS' };
    });
    // As a load balancer or an orchestrator probes: one request at a time, every 20 ms, on one
    // kept-alive connection (fetch keeps it), far more often than the keep-alive time-out.
    const statuses: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const response = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
        if (response) {
          await response.text();
          statuses.push(response.status);
        }
        await sleep(20);
      }
    })();
    let service: Awaited<ReturnType<typeof startHealthServer>> | undefined;
    try {
      while (!handedOver) await sleep(10);
      // Held for ever before: the prober's connection never went idle long enough to be closed.
      let timer: NodeJS.Timeout | undefined;
      const heldOn = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('still holding the port'), 10_000);
      });
      expect(await Promise.race([handedOver, heldOn])).toBe('handed over');
      clearTimeout(timer);
      service = await startHealthServer('127.0.0.1', port, async () => true);
      const deadline = Date.now() + 10_000;
      while (statuses.at(-1) !== 200 && Date.now() < deadline) await sleep(20);
      // The prober now reads the service's own answer.
      expect(statuses.at(-1)).toBe(200);
      expect(statuses).toContain(503);
    } finally {
      probing = false;
      await prober;
      if (service) await new Promise((resolve) => service!.close(resolve));
    }
  }, 30_000);
});
