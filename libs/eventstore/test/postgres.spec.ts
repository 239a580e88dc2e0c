import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SqlEventStore } from '../src/sql/sql-event-store';
import { testEventStore } from './event-store.contract';
import { requireEngine } from '../../../test/engines';

const url = requireEngine('PG_URL');

testEventStore(
  'PostgreSQL',
  async () => {
    const schema = `es_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    return {
      // Each open() is its own pool, so the race and concurrency tests use real parallel connections.
      open: () => SqlEventStore.postgres(url, { schema, poolSize: 8 }),
      cleanup: async () => {
        const c = new Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await c.end();
      },
    };
  },
  { parallelStores: 4 },
);
