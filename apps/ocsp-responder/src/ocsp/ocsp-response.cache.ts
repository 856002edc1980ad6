/** A signed answer that can be served again until `reuseUntil`. */
export interface CachedOcspResponse {
  der: Buffer;
  etag: string;
  thisUpdate: Date;
  nextUpdate: Date;
  reuseUntil: number;
}

/**
 * Signed responses by request and status (RFC 5019 2.2: responses may be pre-produced and reused
 * until shortly before nextUpdate). The key includes the current status of every requested
 * serial, so a revocation changes the key and the stale answer is never served again, on every
 * replica, without any invalidation message. Least recently used entries go first.
 */
export class OcspResponseCache {
  private readonly entries = new Map<string, CachedOcspResponse>();

  constructor(private readonly capacity = 20_000) {}

  get(key: string): CachedOcspResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.reuseUntil <= Date.now()) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedOcspResponse): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
