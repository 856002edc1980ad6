import { CreateCertificateAuthorities1763769600000 } from './1763769600000-create-certificate-authorities';

/** In order; each runs once per database (TypeORM's issuance.migrations table). */
export const ISSUANCE_MIGRATIONS = [CreateCertificateAuthorities1763769600000];
