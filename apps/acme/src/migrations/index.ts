import { EabKeySealer } from '../eab/eab-key-sealer';
import { CreateAcmeSchema1766400000000 } from './1766400000000-create-acme-schema';
import { sealEabKeysMigration } from './1766500000000-seal-eab-keys';
import { CreateRateLimitWindows1766600000000 } from './1766600000000-create-rate-limit-windows';
import { NoncesPerTenant1766700000000 } from './1766700000000-nonces-per-tenant';
import { ReplacesAndProfiles1766800000000 } from './1766800000000-replaces-and-profiles';
import { SpentNonces1766900000000 } from './1766900000000-spent-nonces';

/** The acme schema's migrations; sealing the stored EAB keys needs the context's KEK. */
export function acmeMigrations(sealer: EabKeySealer) {
  return [
    CreateAcmeSchema1766400000000,
    sealEabKeysMigration(sealer),
    CreateRateLimitWindows1766600000000,
    NoncesPerTenant1766700000000,
    ReplacesAndProfiles1766800000000,
    SpentNonces1766900000000,
  ];
}
