import { CaError } from '@ca/contracts';
import { CaStore } from './ca.store';

export const ALREADY_EXISTS = 'This tenant already has a certificate authority; a tenant has at most one.';

/**
 * Serializes the initializations of one tenant's CAs until the caller's transaction ends, then
 * refuses when the tenant has a CA or a pending one (docs/api.md#external-root) already: the two
 * live in different tables, so no one unique constraint can keep an `ExternalRoot` and another
 * hierarchy started at the same moment from both succeeding.
 */
export async function lockCaInitialization(cas: CaStore, tenantId: string): Promise<void> {
  if (await cas.lockInitialization(tenantId)) throw CaError.conflict(ALREADY_EXISTS);
}
