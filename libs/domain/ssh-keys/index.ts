export * from './events';
export * from './ssh-key.resource';
export * from './openssh-public-key';
