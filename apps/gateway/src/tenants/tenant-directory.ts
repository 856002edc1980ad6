import { CaError, ErrorCode } from '@ca/contracts';
import { TenantRecord, TenantStore } from './tenant.store';

export interface TenantDirectoryOptions {
  /** How long a tenant's status is cached; suspension reaches every replica within it. */
  ttlMs?: number;
  now?: () => number;
}

/** Cached entries kept at most; expired ones are dropped first, then everything. */
const MAX_CACHED = 10_000;
export const TENANT_CACHE_TTL_MS = 2_000;

/**
 * Admits the tenant of a verified token: creates it on first use and refuses a suspended one with
 * 403 (issuance enforces the plan limit itself). The status is cached for a couple of seconds
 * (TTL), so an operator's change takes effect on every gateway replica within that time.
 */
export class TenantDirectory {
  private readonly cache = new Map<string, { record: Promise<TenantRecord>; expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: TenantStore,
    options: TenantDirectoryOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? TENANT_CACHE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  async admit(tenantId: string): Promise<void> {
    const record = await this.lookup(tenantId);
    if (record.status === 'suspended') {
      throw new CaError(
        ErrorCode.Forbidden,
        'The tenant is suspended; contact the operator of this service.',
      );
    }
  }

  private lookup(tenantId: string): Promise<TenantRecord> {
    const now = this.now();
    const cached = this.cache.get(tenantId);
    if (cached && cached.expiresAt > now) return cached.record;
    if (this.cache.size >= MAX_CACHED) this.evict(now);
    const record = this.store.findOrCreate(tenantId);
    this.cache.set(tenantId, { record, expiresAt: now + this.ttlMs });
    // A failed lookup is not remembered.
    record.catch(() => {
      if (this.cache.get(tenantId)?.record === record) this.cache.delete(tenantId);
    });
    return record;
  }

  private evict(now: number): void {
    for (const [tenantId, entry] of this.cache) if (entry.expiresAt <= now) this.cache.delete(tenantId);
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
  }
}
