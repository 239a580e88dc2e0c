export * from './events';
export * from './instance-template.resource';
