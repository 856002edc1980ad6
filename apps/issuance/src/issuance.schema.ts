/** The Postgres schema owned by the issuance context (DESIGN.md: one owner per fact). */
export const ISSUANCE_SCHEMA = 'issuance';
