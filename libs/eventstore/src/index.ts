export * from './event-store.port';
export * from './catch-up-subscription';
export * from './sql/sql-client';
export * from './sql/sql-event-store';
export * from './esdb/esdb-event-store';
export * from './handle-command';
export * from './aggregate-stream';
