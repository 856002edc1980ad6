/** The Postgres schema owned by the acme context: EAB keys, accounts, orders, authorizations, challenges, nonces. */
export const ACME_SCHEMA = 'acme';
