import { CreateAcmeSchema1766400000000 } from './1766400000000-create-acme-schema';

export const ACME_MIGRATIONS = [CreateAcmeSchema1766400000000];
