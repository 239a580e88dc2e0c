export * from './events';
export * from './tax';
export * from './invoice.decider';
export * from './usage';
export * from './invoice.fields';
