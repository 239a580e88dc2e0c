export * from './events';
export * from './job.decider';
