export * from './cloudevents';
export * from './kafka-relay';
