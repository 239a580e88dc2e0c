// The EventStreamIdempotencyStore contract on the embedded event store (PGlite): it uses the port
// only, so this run proves its logic on every run; EventStoreDB runs the same contract in `npm run test:esdb`.
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import { testEventStreamIdempotency } from './event-stream-idempotency.contract';

testEventStreamIdempotency('PGlite', () => SqlEventStore.pglite(undefined, { schema: 'idem_streams' }));
