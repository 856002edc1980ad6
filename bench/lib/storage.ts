/**
 * What a running system keeps on disk: rows and bytes of every table of its schemas, and the
 * messages and bytes of its JetStream streams. Read by the soak (bench/soak.ts) once per window.
 */
import { connect } from 'nats';
import { Client } from 'pg';
import { benchStreamName } from './bench-streams';

/** The schemas of the five contexts, and the in-process transport's (embedded mode). */
export const SCHEMAS = ['gateway', 'issuance', 'revocation', 'ocsp', 'acme', 'messaging'];

export interface TableSize {
  rows: number;
  /** pg_total_relation_size: heap, indexes and TOAST. */
  bytes: number;
}

/** Tables by `schema.table`, streams by name. */
export interface StorageSample {
  tables: Record<string, TableSize>;
  streams: Record<string, { messages: number; bytes: number }>;
}

/**
 * What a table holds, for the verdict: `transient` rows go after a window or TTL (must be flat
 * after the first window), `per-certificate` rows come with each issue or revocation (grow
 * linearly), everything else comes with tenants (a few rows each).
 */
export type TableKind = 'transient' | 'per-certificate' | 'per-tenant';

const TRANSIENT =
  /\.(outbox|inbox|stream|blobs|nonces|orders|authorizations|challenges|event_dead_letters|audit_dead_letters|rate_limit_windows|downloads|pending_crls|pending_root_crls)$/;
const PER_CERTIFICATE = new Set([
  'issuance.certificates',
  'ocsp.certificate_status',
  'revocation.revoked_certificates',
  // One entry per request; kept for the tenant's audit retention (30 days at least).
  'gateway.audit_events',
]);

export function tableKind(table: string): TableKind {
  if (TRANSIENT.test(table)) return 'transient';
  if (PER_CERTIFICATE.has(table)) return 'per-certificate';
  return 'per-tenant';
}

/** Reads table sizes over one connection of its own (kept open for the run). */
export class StorageProbe {
  private constructor(
    private readonly client: Client,
    private readonly nats?: { url: string; streamId: string },
  ) {}

  static async open(databaseUrl: string, nats?: { url: string; streamId: string }): Promise<StorageProbe> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    return new StorageProbe(client, nats);
  }

  async sample(): Promise<StorageSample> {
    const { rows: tables } = await this.client.query<{ name: string }>(
      `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND n.nspname = ANY($1) AND c.relname <> 'migrations'
        ORDER BY 1`,
      [SCHEMAS],
    );
    const sample: StorageSample = { tables: {}, streams: {} };
    if (tables.length > 0) {
      // One statement: exact counts (the tables are small enough) and sizes at the same moment.
      const { rows } = await this.client.query<{ name: string; rows: string; bytes: string }>(
        tables
          .map(
            ({ name }) =>
              `SELECT '${name}' AS name, (SELECT count(*) FROM ${name}) AS rows, pg_total_relation_size('${name}') AS bytes`,
          )
          .join(' UNION ALL '),
      );
      for (const row of rows) sample.tables[row.name] = { rows: Number(row.rows), bytes: Number(row.bytes) };
    }
    if (this.nats) sample.streams = await streamSizes(this.nats.url, this.nats.streamId);
    return sample;
  }

  /** Whether the server vacuums on its own (`autovacuum`, on by default; PGlite has none). */
  async autovacuum(): Promise<boolean> {
    const { rows } = await this.client.query<{ autovacuum: string }>('SHOW autovacuum');
    return rows[0]?.autovacuum === 'on';
  }

  /** A VACUUM of the whole (throwaway) database: stands in for autovacuum on a server that has it off. */
  async vacuum(): Promise<void> {
    await this.client.query('VACUUM');
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** The event stream and the blob store's stream of one benchmark system (bench-streams.ts). */
async function streamSizes(
  natsUrl: string,
  streamId: string,
): Promise<Record<string, { messages: number; bytes: number }>> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    const sizes: Record<string, { messages: number; bytes: number }> = {};
    const events = benchStreamName(streamId);
    for (const [label, name] of [
      ['CA_EVENTS', events],
      ['CA_EVENTS_BLOBS', `OBJ_${events}_BLOBS`],
    ]) {
      const info = await jsm.streams.info(name).catch(() => undefined);
      sizes[label] = { messages: info?.state.messages ?? 0, bytes: info?.state.bytes ?? 0 };
    }
    return sizes;
  } finally {
    await nc.close();
  }
}
