export * from './events';
export * from './file-content';
export * from './file.decider';
