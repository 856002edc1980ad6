// What other suites (tests/security) borrow from the fault suites' support: child programs and
// free ports, the services' environment. Reached as `@ca/faults/testing`.
export * from './child-process';
export * from './ports';
export * from './service-environment';
