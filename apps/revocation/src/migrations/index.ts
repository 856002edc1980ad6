import { CreateCrlIssuers1763769600000 } from './1763769600000-create-crl-issuers';

export const REVOCATION_MIGRATIONS = [CreateCrlIssuers1763769600000];
