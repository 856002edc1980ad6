import { Gauge } from 'prom-client';
import { metricsRegistry } from './registry';

/** One sample of a gauge read at scrape time. */
export interface GaugeSample<L extends string> {
  labels: Partial<Record<L, string>>;
  value: number;
}

export type GaugeSource<L extends string> = () => Promise<GaugeSample<L>[]>;

/**
 * A gauge whose values are read when Prometheus scrapes (outbox backlog, consumer lag, CRL age):
 * each running service registers a source and removes it when it stops, so a stopped service's
 * series disappear instead of freezing. A failing source (database briefly down) is left out of
 * that scrape; the scrape itself never fails.
 */
export class SourcedGauge<L extends string> {
  private readonly sources = new Set<GaugeSource<L>>();
  private readonly gauge: Gauge<L>;

  constructor(name: string, help: string, labelNames: readonly L[]) {
    const sources = this.sources;
    this.gauge = new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [metricsRegistry],
      async collect() {
        this.reset();
        const results = await Promise.allSettled([...sources].map((source) => source()));
        for (const result of results) {
          if (result.status !== 'fulfilled') continue;
          for (const sample of result.value) this.set(sample.labels, sample.value);
        }
      },
    });
  }

  /** Adds a source; the returned function removes it (call it when the service stops). */
  register(source: GaugeSource<L>): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** The current samples, as a scrape would see them (tests). */
  async samples(): Promise<{ labels: Partial<Record<L, string | number>>; value: number }[]> {
    return (await this.gauge.get()).values;
  }
}
