/** A signed answer that can be served again until `reuseUntil`. */
export interface CachedOcspResponse {
  der: Buffer;
  etag: string;
  thisUpdate: Date;
  nextUpdate: Date;
  reuseUntil: number;
}

/** Default bound: 64 MiB of answers and keys. */
export const DEFAULT_OCSP_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** What an entry costs beyond its bytes: Map slot, entry object, dates (an estimate on the safe side). */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * Signed responses by request and status (RFC 5019 2.2: responses may be pre-produced and reused
 * until shortly before nextUpdate). The key includes the current status of every requested
 * serial, so a revocation changes the key and the stale answer is never served again, on every
 * replica, without any invalidation message.
 *
 * Bounded in bytes (answer, key as UTF-16, fixed overhead), not in entries: a flood of distinct
 * requests (many CertIDs each, or many serials) cannot grow memory past `maxBytes`. The least
 * recently used entries go first.
 */
export class OcspResponseCache {
  private readonly entries = new Map<string, CachedOcspResponse>();
  private usedBytes = 0;

  constructor(private readonly maxBytes = DEFAULT_OCSP_CACHE_MAX_BYTES) {}

  get(key: string): CachedOcspResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.reuseUntil <= Date.now()) {
      this.usedBytes -= costOf(key, entry);
      return undefined;
    }
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedOcspResponse): void {
    this.remove(key);
    const cost = costOf(key, entry);
    if (cost > this.maxBytes) return;
    this.entries.set(key, entry);
    this.usedBytes += cost;
    for (const [oldest] of this.entries) {
      if (this.usedBytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes accounted for the entries held; never above the bound. */
  get bytes(): number {
    return this.usedBytes;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.usedBytes -= costOf(key, entry);
  }
}

function costOf(key: string, entry: CachedOcspResponse): number {
  return entry.der.length + key.length * 2 + entry.etag.length * 2 + ENTRY_OVERHEAD_BYTES;
}
