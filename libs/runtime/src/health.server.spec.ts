import { AddressInfo } from 'node:net';
import { certificateMetrics } from '@ca/observability';
import { startHealthServer } from './health.server';

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
});
