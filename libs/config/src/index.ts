export * from './config-error';
export * from './env-readers';
export * from './ca-manager.config';
export * from './nats-client.config';
export * from './http-limits.config';
export * from './acme.config';
export * from './pkcs11.config';
export * from './webhooks.config';
