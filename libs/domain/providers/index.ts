export * from './events';
export * from './provider.decider';
export * from './capabilities';
