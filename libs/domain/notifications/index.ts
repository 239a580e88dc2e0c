export * from './events';
export * from './event-names';
export * from './notification.decider';
export * from './endpoint.decider';
export * from './delivery.decider';
export * from './webhook-target';
