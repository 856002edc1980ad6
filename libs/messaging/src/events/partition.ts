/**
 * Events are partitioned by tenant: every event of a tenant goes to one partition, and each durable
 * consumer handles a partition in stream order (one event in flight), while partitions proceed
 * concurrently, within a replica and across replicas. So a tenant's events keep their order (a
 * certificate is issued before it is revoked) and a slow tenant holds up only its partition.
 *
 * The count is fixed: it is part of the subjects and of the consumer names. Changing it is a
 * migration (docs/operations.md, "Event partitions").
 */
export const EVENT_PARTITIONS = 16;

/** FNV-1a (32 bit) of the tenant id, modulo EVENT_PARTITIONS: stable across processes and versions. */
export function partitionOf(tenantId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < tenantId.length; i++) {
    hash ^= tenantId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % EVENT_PARTITIONS;
}

/** The partition's subject token and consumer-name suffix: `p00` … `p15`. */
export function partitionToken(partition: number): string {
  return `p${String(partition).padStart(2, '0')}`;
}

/** Every partition number, in order. */
export function allPartitions(): number[] {
  return Array.from({ length: EVENT_PARTITIONS }, (_, i) => i);
}
