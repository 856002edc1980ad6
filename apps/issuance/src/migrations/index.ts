import { CreateCertificateAuthorities1763769600000 } from './1763769600000-create-certificate-authorities';
import { CreateCertificates1763769700000 } from './1763769700000-create-certificates';

/** In order; each runs once per database (TypeORM's issuance.migrations table). */
export const ISSUANCE_MIGRATIONS = [
  CreateCertificateAuthorities1763769600000,
  CreateCertificates1763769700000,
];
