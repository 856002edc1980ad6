import type { KeyAlgorithm } from '@ca/contracts';
import type { CaKeyCustodies } from '../custody/ca-key-custodies';
import type { IssuanceDatabase } from '../issuance-database.store';

/** What every CA command handler (initialize, add an issuing CA, renew the root, a corporate root) is built with. */
export interface CaHandlerDependencies {
  database: IssuanceDatabase;
  custodies: CaKeyCustodies;
  /** KEY_CUSTODY: recorded with each key a handler makes. */
  custodyKind: string;
  /** After a commit that recorded events: the outbox relay publishes them now. */
  onEventsRecorded: () => void;
  /** PKI_PUBLIC_URL: where the CDP and AIA of what is signed point. */
  pkiPublicUrl: string;
  /** KEY_ALGORITHM: the key of a CA made without a choice (docs/api.md#key-algorithms). */
  deploymentKeyAlgorithm: KeyAlgorithm;
}
