import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's one Prometheus registry. Under `npm start` the four services share a process, so
 * they share it too: every CA Manager metric carries a `service` label where more than one
 * service could report it. Process metrics (CPU, memory, event-loop lag) come with it.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** The text exposition format (Prometheus 0.0.4), as served at `GET /metrics`. */
export async function metricsExposition(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
