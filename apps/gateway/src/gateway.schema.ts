/** The Postgres schema owned by the gateway (DESIGN.md: tenants, audit events, rate-limit windows). */
export const GATEWAY_SCHEMA = 'gateway';
