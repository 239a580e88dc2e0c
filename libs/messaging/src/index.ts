export * from './cloudevents';
export * from './kafka-relay';
export * from './bench-relay';
