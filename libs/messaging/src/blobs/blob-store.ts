import { createHash, randomUUID } from 'node:crypto';
import {
  DiscardPolicy,
  JetStreamManager,
  MsgRequest,
  NatsConnection,
  ObjectStore,
  StorageType,
  nanos,
} from 'nats';
import { STREAM_OWNER, StreamRole, WaitReporter, ensureStream } from '../events/stream-setup';
import { Pool } from 'pg';
import { isUuid } from '@ca/contracts';

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

/** Long enough for a consumer that was down for a while; CRLs are re-published well within it (BLOB_TTL). */
export const BLOB_TTL_MS = 24 * 60 * 60_000;

/**
 * Embedded mode: blobs in the embedded database (`messaging.blobs`), so a hand-over survives a
 * restart as it does in a JetStream object store.
 */
export class InProcessBlobStore extends BlobStore {
  private constructor(
    private readonly pool: Pool,
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {
    super();
  }

  /** `now`: the clock (tests move it forward). */
  static async open(
    pool: Pool,
    ttlMs = BLOB_TTL_MS,
    now: () => Date = () => new Date(),
  ): Promise<InProcessBlobStore> {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS messaging`);
    await pool.query(`CREATE TABLE IF NOT EXISTS messaging.blobs (
      ref uuid PRIMARY KEY, bytes bytea NOT NULL, expires_at timestamptz NOT NULL)`);
    return new InProcessBlobStore(pool, ttlMs, now);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const ref = randomUUID();
    const now = this.now();
    // Expired blobs go with the next put: nothing reads them any more.
    await this.pool.query(`DELETE FROM messaging.blobs WHERE expires_at < $1`, [now]);
    await this.pool.query(`INSERT INTO messaging.blobs (ref, bytes, expires_at) VALUES ($1, $2, $3)`, [
      ref,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      new Date(now.getTime() + this.ttlMs),
    ]);
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    if (!isUuid(ref)) return undefined;
    const { rows } = await this.pool.query<{ bytes: Buffer }>(
      `SELECT bytes FROM messaging.blobs WHERE ref = $1 AND expires_at >= $2`,
      [ref, this.now()],
    );
    return rows[0] ? new Uint8Array(rows[0].bytes) : undefined;
  }

  async delete(ref: string): Promise<void> {
    if (isUuid(ref)) await this.pool.query(`DELETE FROM messaging.blobs WHERE ref = $1`, [ref]);
  }
}

/**
 * Distributed mode: a JetStream object store bucket, chunked by NATS, with a TTL. Reads fetch
 * the chunks one stream message at a time instead of through the object store's ordered push
 * consumer: a push consumer's deliver subject is not checked against its creator's publish
 * permissions, so no service may create consumers on this stream (docs/security.md, "The bus").
 */
export class JetStreamBlobStore extends BlobStore {
  private constructor(
    private readonly store: ObjectStore,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    private readonly readOnly: boolean,
  ) {
    super();
  }

  /**
   * The bucket's stream is made (and its settings kept) by its owner, as the event stream is
   * (ensureStream); a user that may not create it waits for it.
   */
  static async open(
    nc: NatsConnection,
    bucket: string,
    ttlMs = BLOB_TTL_MS,
    /** readOnly: a reader without rights to write or delete (its blobs expire with the TTL). */
    setup: { role?: StreamRole; report?: WaitReporter; readOnly?: boolean } = {},
  ): Promise<JetStreamBlobStore> {
    const jsm = await nc.jetstreamManager();
    // What the object store itself would create (nats.js ObjectStoreImpl.init), fixed here.
    await ensureStream(
      jsm,
      {
        name: `OBJ_${bucket}`,
        subjects: [`$O.${bucket}.C.>`, `$O.${bucket}.M.>`],
        storage: StorageType.File,
        max_age: nanos(ttlMs),
        num_replicas: 1,
        allow_direct: true,
        allow_rollup_hdrs: true,
        discard: DiscardPolicy.New,
      },
      { role: setup.role ?? 'user', owner: STREAM_OWNER, report: setup.report },
    );
    const store = await nc.jetstream().views.os(bucket, { ttl: nanos(ttlMs) });
    return new JetStreamBlobStore(store, jsm, bucket, setup.readOnly ?? false);
  }

  async put(bytes: Uint8Array): Promise<string> {
    if (this.readOnly) throw new Error('this service only reads the blob store');
    const ref = randomUUID();
    await this.store.putBlob({ name: ref }, bytes);
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    const info = await this.store.info(ref);
    if (!info || info.deleted) return undefined;
    const stream = `OBJ_${this.bucket}`;
    const subject = `$O.${this.bucket}.C.${info.nuid}`;
    const chunks: Uint8Array[] = [];
    let seq = 1;
    for (let i = 0; i < info.chunks; i++) {
      // STREAM.MSG.GET with next_by_subj (nats-server 2.9+): the first chunk at or after seq.
      const next = { seq, next_by_subj: subject } as unknown as MsgRequest;
      const chunk = await this.jsm.streams.getMessage(stream, next);
      chunks.push(chunk.data);
      seq = chunk.seq + 1;
    }
    const bytes = new Uint8Array(Buffer.concat(chunks));
    const digest = `SHA-256=${createHash('sha256').update(bytes).digest('base64url')}`;
    // The object store writes the digest base64url with padding; compare without it.
    if (bytes.length !== info.size || digest !== info.digest.replace(/=+$/, ''))
      throw new Error(`blob ${ref} does not match its recorded size and digest`);
    return bytes;
  }

  async delete(ref: string): Promise<void> {
    if (this.readOnly) return;
    await this.store.delete(ref).catch(() => undefined);
  }
}
