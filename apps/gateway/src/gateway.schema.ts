/** The Postgres schema owned by the gateway (docs/architecture.md#bounded-contexts: tenants, audit events, rate-limit windows). */
export const GATEWAY_SCHEMA = 'gateway';
