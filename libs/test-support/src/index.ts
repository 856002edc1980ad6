// Helpers the test suites and benchmarks share (free ports, one HTTP exchange, a bounded pool).
// Tagged `type:test-support`: only test projects and bench may import it, never a service.
export * from './ports';
export * from './http';
export * from './pool';
