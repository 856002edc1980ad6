/** The Postgres schema owned by the issuance context (docs/architecture.md#bounded-contexts: one owner per fact). */
export const ISSUANCE_SCHEMA = 'issuance';
