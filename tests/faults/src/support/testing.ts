// What other suites (tests/security) borrow from the fault suites' support: child programs, the
// services' environment and processes. Reached as `@ca/faults/testing`.
export * from './child-process';
export * from './service-program';
export * from './service-environment';
