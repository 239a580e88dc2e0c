export * from './read-store.port';
export * from './errors';
export * from './filter';
export * from './memory-read-store';
export * from './list-shapes';
export * from './mongo-read-store';
