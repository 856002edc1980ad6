/**
 * A tenant with a CA and an ACME server on a running system, for the ACME benchmarks: its
 * directory, EAB credentials on demand, and the CPU the system spends (its process plus, on
 * Postgres, the backends of its database).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { processCpuMs } from './process-cpu';
import { onCleanup } from './proc';
import { adminApi, RunningSystem } from './system';

export interface AcmeTenant {
  directoryUrl: string;
  eab(): Promise<{ keyId: string; hmacKey: string }>;
  /** CPU (ms) so far of the system's process and its database's backends. */
  cpuMs(): Promise<number>;
}

export async function acmeTenant(system: RunningSystem): Promise<AcmeTenant> {
  const tenantId = randomUUID();
  const api = adminApi(system, await system.token(tenantId));
  const init = await api.call('POST', '/v2/ca/initialize', {
    commonName: 'Bench ACME Root',
    organization: 'Bench',
    country: 'US',
    validityYears: 10,
  });
  if (init.status !== 200 && init.status !== 201)
    throw new Error(`CA initialization: ${init.status} ${JSON.stringify(init.json)}`);
  const directoryUrl = `${system.adminUrl}/acme/${tenantId}/directory`;
  // The ACME server answers once acme has heard of the tenant's CA.
  for (const deadline = Date.now() + 30_000; ;) {
    const answer = await fetch(directoryUrl);
    if (answer.status === 200) break;
    if (Date.now() > deadline) throw new Error(`ACME directory: ${answer.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const backends = system.databaseUrl ? await postgresBackends(system.databaseUrl) : undefined;
  return {
    directoryUrl,
    cpuMs: async () => (processCpuMs(system.pid) ?? NaN) + (backends ? await backends() : 0),
    eab: async () => {
      const key = await api.call('POST', '/v2/acme/eab-keys');
      if (key.status !== 201) throw new Error(`EAB key: ${key.status} ${JSON.stringify(key.json)}`);
      return key.json as { keyId: string; hmacKey: string };
    },
  };
}

/**
 * The CPU of the Postgres backends serving `databaseUrl` (read in /proc; the server is local): the
 * database's share of our CPU. A backend that has exited since is counted as last seen.
 */
export async function postgresBackends(databaseUrl: string): Promise<() => Promise<number>> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  onCleanup(() => admin.end());
  const seen = new Map<number, number>();
  let exited = 0;
  return async () => {
    const { rows } = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [name],
    );
    let total = exited;
    const current = new Set<number>();
    for (const { pid } of rows) {
      const cpu = processCpuMs(pid);
      if (cpu === undefined) continue;
      current.add(pid);
      seen.set(pid, cpu);
      total += cpu;
    }
    for (const [pid, cpu] of seen) {
      if (current.has(pid)) continue;
      // Gone (the pool closed it): keep what it had used when last seen.
      exited += cpu;
      total += cpu;
      seen.delete(pid);
    }
    return total;
  };
}
