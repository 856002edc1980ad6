import { randomUUID } from 'node:crypto';
import { NatsConnection, ObjectStore, nanos } from 'nats';
import { Pool } from 'pg';

/**
 * Hands large payloads (a CRL's TBSCertList can be tens of megabytes) from one service to another
 * beside a request/reply, which NATS limits to about 1 MB: the sender puts the bytes and sends
 * the returned reference; the receiver gets them. Blobs expire on their own.
 */
export abstract class BlobStore {
  abstract put(bytes: Uint8Array): Promise<string>;
  /** The bytes, or undefined when the reference is unknown or expired. */
  abstract get(ref: string): Promise<Uint8Array | undefined>;
  abstract delete(ref: string): Promise<void>;
}

/** Long enough for a consumer that was down for a while; CRLs are re-published well within it. */
export const BLOB_TTL_MS = 24 * 60 * 60_000;

/**
 * Embedded mode: blobs in the embedded database (`messaging.blobs`), so a hand-over survives a
 * restart as it does in a JetStream object store.
 */
export class InProcessBlobStore extends BlobStore {
  private constructor(private readonly pool: Pool) {
    super();
  }

  static async open(pool: Pool): Promise<InProcessBlobStore> {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS messaging`);
    await pool.query(`CREATE TABLE IF NOT EXISTS messaging.blobs (
      ref uuid PRIMARY KEY, bytes bytea NOT NULL, expires_at timestamptz NOT NULL)`);
    return new InProcessBlobStore(pool);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const ref = randomUUID();
    await this.pool.query(`DELETE FROM messaging.blobs WHERE expires_at < now()`);
    await this.pool.query(`INSERT INTO messaging.blobs (ref, bytes, expires_at) VALUES ($1, $2, $3)`, [
      ref,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      new Date(Date.now() + BLOB_TTL_MS),
    ]);
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    if (!UUID.test(ref)) return undefined;
    const { rows } = await this.pool.query<{ bytes: Buffer }>(
      `SELECT bytes FROM messaging.blobs WHERE ref = $1 AND expires_at >= now()`,
      [ref],
    );
    return rows[0] ? new Uint8Array(rows[0].bytes) : undefined;
  }

  async delete(ref: string): Promise<void> {
    if (UUID.test(ref)) await this.pool.query(`DELETE FROM messaging.blobs WHERE ref = $1`, [ref]);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Distributed mode: a JetStream object store bucket, chunked by NATS, with a TTL. */
export class JetStreamBlobStore extends BlobStore {
  private constructor(private readonly store: ObjectStore) {
    super();
  }

  static async open(nc: NatsConnection, bucket: string): Promise<JetStreamBlobStore> {
    const store = await nc.jetstream().views.os(bucket, { ttl: nanos(BLOB_TTL_MS) });
    return new JetStreamBlobStore(store);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const ref = randomUUID();
    await this.store.putBlob({ name: ref }, bytes);
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    return (await this.store.getBlob(ref)) ?? undefined;
  }

  async delete(ref: string): Promise<void> {
    await this.store.delete(ref).catch(() => undefined);
  }
}
