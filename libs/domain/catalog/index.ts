export * from './events';
export * from './catalog.decider';
