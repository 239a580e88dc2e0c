// Run by `npm run test:esdb` only (needs ESDB_URL); see scripts/test-esdb.sh.
import { EsdbEventStore } from '../src/esdb/esdb-event-store';
import { testEventStore } from './event-store.contract';
import { testAggregateStream } from './aggregate-stream.contract';

const url = process.env.ESDB_URL;
if (!url) throw new Error('ESDB_URL must point at an EventStoreDB server');

const esdb = async () => ({
  open: async () => EsdbEventStore.connect(url),
  // Streams have random names per test; EventStoreDB keeps them (no schema to drop).
  cleanup: async () => undefined,
});
testEventStore('EventStoreDB', esdb, { parallelStores: 4 });
testAggregateStream('EventStoreDB', esdb);
