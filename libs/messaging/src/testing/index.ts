export * from './test-messaging';
