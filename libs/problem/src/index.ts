export * from './problem-catalog';
export * from './problem-document';
