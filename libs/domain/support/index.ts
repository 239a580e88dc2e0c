export * from './events';
export * from './ticket.decider';
export * from './ticket-number.decider';
export * from './ticket.fields';
