import { CrlPublishedPayload, EventEnvelope, EventType } from '@ca/contracts';
import { recordEvent } from '@ca/messaging';
import { EntityManager } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';

/**
 * `revocation.outbox` as this context writes and reads it: each signed CRL's `crl.published`
 * (relayed to the stream by the OutboxRelay of libs/messaging), and the blobs of CRLs that a
 * newer one of the same issuer has superseded.
 */
export abstract class CrlOutboxStore {
  /** Records `crl.published`, in the caller's transaction. */
  abstract recordPublished(payload: CrlPublishedPayload): Promise<EventEnvelope<CrlPublishedPayload>>;
  /**
   * The blob references of CRLs whose successor (the next `crl.published` of the same tenant,
   * issuer and CA) went out after `from` and at or before `to`.
   */
  abstract supersededBlobs(from: Date, to: Date): Promise<string[]>;
}

export class SqlCrlOutboxStore extends CrlOutboxStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  recordPublished(payload: CrlPublishedPayload): Promise<EventEnvelope<CrlPublishedPayload>> {
    return recordEvent<CrlPublishedPayload>(this.db, REVOCATION_SCHEMA, EventType.CrlPublished, payload);
  }

  async supersededBlobs(from: Date, to: Date): Promise<string[]> {
    const superseded: { blob_ref: string }[] = await this.db.query(
      `SELECT o.payload->>'blobRef' AS blob_ref FROM revocation.outbox o
         JOIN LATERAL (SELECT n.published_at FROM revocation.outbox n
                        WHERE n.type = $1 AND n.tenant_id = o.tenant_id AND n.seq > o.seq
                          AND n.payload->>'issuer' IS NOT DISTINCT FROM o.payload->>'issuer'
                          AND n.payload->>'caId' IS NOT DISTINCT FROM o.payload->>'caId'
                        ORDER BY n.seq LIMIT 1) successor ON true
        WHERE o.type = $1 AND successor.published_at > $2 AND successor.published_at <= $3`,
      [EventType.CrlPublished, from, to],
    );
    return superseded.map((row) => row.blob_ref);
  }
}
