/** A chain's last entry: its position and hash, what the next entry links to. */
export interface ChainHead {
  id: number;
  hash: string;
}

/**
 * What one AuditStore knows without asking the database, so that an append can go without the
 * chains' locks (AuditStore.append): each chain's head as this store last wrote it, and a block of
 * entry ids taken from the sequence ahead of time. A remembered head may be stale (another gateway
 * appended since): the unlocked append checks it in the same statement, so staleness only costs a
 * fall-back to the locked append.
 *
 * Within a chain, ids must grow with positions. An id of the block is therefore used only if the
 * block was taken after every id a locked append of this store took: a locked append starts a new
 * generation, and a block taken in an older one is dropped. (An entry this store did not write is
 * never the head it remembers, so the guard refuses any append on top of it.)
 */
export class AuditAppendCache {
  private readonly heads = new Map<string, ChainHead>();
  private ids: number[] = [];
  private generation = 0;
  /** The largest id handed out: later ones are larger (two blocks may come back out of order). */
  private highest = 0;

  headOf(key: string): ChainHead | undefined {
    return this.heads.get(key);
  }

  remember(key: string, head: ChainHead): void {
    this.heads.set(key, head);
  }

  forget(keys: Iterable<string>): void {
    for (const key of keys) this.heads.delete(key);
  }

  /** After a failure: nothing known may be relied on. */
  clear(): void {
    this.heads.clear();
    this.lockedIdsTaken();
  }

  /** A locked append took ids from the sequence: the block taken before them is dropped. */
  lockedIdsTaken(): void {
    this.generation++;
    this.ids = [];
  }

  /** `count` ids of the block, ascending, or undefined when it has fewer. */
  take(count: number): number[] | undefined {
    if (this.ids.length < count) return undefined;
    const taken = this.ids.splice(0, count);
    this.highest = taken[taken.length - 1];
    return taken;
  }

  /** Before a block is taken from the sequence: the generation its ids will belong to. */
  refillStarts(): number {
    return this.generation;
  }

  /** A block taken from the sequence (ascending), kept only if no locked append took ids since it started. */
  refilled(generation: number, ids: readonly number[]): void {
    if (generation !== this.generation) return;
    const above = Math.max(this.highest, this.ids[this.ids.length - 1] ?? 0);
    this.ids.push(...ids.filter((id) => id > above));
  }
}
