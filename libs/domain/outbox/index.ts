export * from './effect';
export * from './failures';
export * from './retry-policy';
