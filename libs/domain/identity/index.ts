export * from './events';
export * from './project.decider';
export * from './api-key.decider';
export * from './member.fields';
