export * from './test-messaging';
export * from './eventually';
