/** The Postgres schema owned by the OCSP responder: its projection of what the public surface serves. */
export const OCSP_SCHEMA = 'ocsp';
