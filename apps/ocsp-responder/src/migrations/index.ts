import { CreateCaCertificates1763769600000 } from './1763769600000-create-ca-certificates';

export const OCSP_MIGRATIONS = [CreateCaCertificates1763769600000];
