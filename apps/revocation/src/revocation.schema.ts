/** The Postgres schema owned by the revocation context: revoked entries, CRL numbers, signed CRLs. */
export const REVOCATION_SCHEMA = 'revocation';
