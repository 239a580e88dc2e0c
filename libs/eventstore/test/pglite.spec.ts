import { SqlEventStore } from '../src/sql/sql-event-store';
import { PgliteSqlClient } from '../src/sql/sql-client';
import { testEventStore } from './event-store.contract';

// PGlite is one embedded database per process: the fixture shares one instance between "connections".
testEventStore(
  'PGlite',
  async () => {
    const client = await PgliteSqlClient.open();
    let opened = 0;
    const shared = {
      kind: client.kind,
      query: client.query.bind(client),
      transaction: client.transaction.bind(client),
      listen: client.listen.bind(client),
      close: async () => {
        opened--;
        if (opened === 0) await client.close();
      },
    };
    return {
      open: async () => {
        opened++;
        return SqlEventStore.open(shared, { schema: 'es_contract' });
      },
      cleanup: async () => undefined,
    };
  },
  { parallelStores: 1 },
);
