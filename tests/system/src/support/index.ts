// What the outsider suites (tests/security) borrow from the system suites' support: an admin-API
// client, HTTP helpers, OCSP/CRL checks and a system to start. Reached as `@ca/system/testing`.
export * from './admin-api';
export { eventually, http, sleep, type HttpAnswer } from './http';
export * from './pki';
export * from './system-under-test';
export * from './held-socket';
export * from './operator';
