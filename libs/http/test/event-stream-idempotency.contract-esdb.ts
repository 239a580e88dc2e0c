// Run by `npm run test:esdb` only (needs ESDB_URL); see scripts/test-esdb.sh.
import { EsdbEventStore } from '../../eventstore/src/esdb/esdb-event-store';
import { testEventStreamIdempotency } from './event-stream-idempotency.contract';

const url = process.env.ESDB_URL;
if (!url) throw new Error('ESDB_URL must point at an EventStoreDB server');

testEventStreamIdempotency('EventStoreDB', async () => EsdbEventStore.connect(url));
