// Internals the system suites (tests/system) observe: the HTTP front a test spies on to
// prove a cached answer is served from memory.
export { OcspHttp } from './ocsp/ocsp.http';
// The replicas benchmark (bench/replicas.ts) times the CRL check made before every CRL answer.
export { CrlStore } from './crls/crl.store';
export { OCSP_MIGRATIONS } from './migrations';
