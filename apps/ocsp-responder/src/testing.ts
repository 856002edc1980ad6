// Internals the system suites (apps/embedded/test) observe: the HTTP front a test spies on to
// prove a cached answer is served from memory.
export { OcspHttp } from './ocsp/ocsp.http';
