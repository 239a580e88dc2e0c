export * from './money';
export * from './events';
export * from './wallet.decider';
export * from './exchange-rate.decider';
export * from './payments';
