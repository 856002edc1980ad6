// `npm run ops` in embedded mode: the operator endpoint the running process serves, and the CLI's
// side of it. The commands themselves belong to the contexts that run them.
export * from './operator-protocol';
export * from './operator-endpoint';
export * from './operator-client';
