export * from './events';
export * from './ssh-key.decider';
export * from './openssh-public-key';
