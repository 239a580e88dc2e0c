export * from './events';
export * from './provider.decider';
