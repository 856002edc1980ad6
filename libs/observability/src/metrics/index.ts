export * from './registry';
export * from './sourced-gauge';
export * from './ca-metrics';
export * from './http-metrics';
