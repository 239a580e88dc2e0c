import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SqlEventStore } from '../src/sql/sql-event-store';
import { PgliteSqlClient } from '../src/sql/sql-client';
import { ev, testEventStore } from './event-store.contract';
import { testAggregateStream } from './aggregate-stream.contract';
import { testSnapshots } from './snapshots.contract';
import { eventually } from '../../../test/support/wait';

// PGlite is one embedded database per process: the fixture shares one instance between "connections".
const pglite = async () => {
  const client = await PgliteSqlClient.open();
  let opened = 0;
  const shared = {
    kind: client.kind,
    query: client.query.bind(client),
    transaction: client.transaction.bind(client),
    scripted: client.scripted.bind(client),
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
};
testEventStore('PGlite', pglite, { parallelStores: 1 });
testAggregateStream('PGlite', pglite);
testSnapshots('PGlite', pglite);

describe('PGlite tail reads', () => {
  it("sends no subscription to the database for a commit's own NOTIFY echo: its events come from the tail", async () => {
    const client = await PgliteSqlClient.open();
    const queries: string[] = [];
    const query = client.query.bind(client);
    client.query = ((sql: string, params?: unknown[]) => (queries.push(sql), query(sql, params))) as typeof client.query;
    // A long poll interval: a caught-up reader does not verify against the database during the test.
    const store = await SqlEventStore.open(client, { schema: 'es_echo', pollIntervalMs: 600_000 });
    const ev = () => ({ id: randomUUID(), type: 'test.Echo.v1', data: {}, metadata: { schemaVersion: 1, actor: 'test' } });
    const seen: number[] = [];
    const subs = Array.from({ length: 3 }, () => store.subscribeToAll({ fromPosition: 0, batchSize: 100, onEvents: async (events) => void seen.push(...events.map((e) => e.position)) }));
    try {
      await store.append(`echo-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
      await eventually(async () => seen.length, (n) => n >= 3, 10_000, 5);
      // A caught-up reader asks the database once per poll interval: this read is (or follows) that
      // one, so none of the subscriptions' own is still to come when the count starts.
      await store.readAll({ fromPosition: await store.headPosition(), maxCount: 100 });
      queries.length = 0;
      for (let i = 0; i < 20; i++) await store.append(`echo-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
      await eventually(async () => seen.length, (n) => n >= 63, 10_000, 5);
      expect(seen.length).toBe(63);
      expect(queries.filter((q) => q.includes('WHERE position >'))).toEqual([]);
    } finally {
      for (const s of subs) await s.stop();
      await store.close();
    }
  });
});

describe('PGlite template (PGLITE_TEMPLATE, made by test/global-setup.mjs)', () => {
  const template = process.env.PGLITE_TEMPLATE!;
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-template-'));
    dirs.push(dir);
    return path.join(dir, 'eventstore');
  };
  const systemId = async (client: PgliteSqlClient) => (await client.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()'))[0].id;
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('starts new stores, on disk and in memory, as copies of one cluster instead of running initdb', async () => {
    expect(fs.existsSync(template)).toBe(true);
    // initdb gives every cluster its own system identifier; copies of the template share its one.
    const ids: string[] = [];
    for (const dir of [freshDir(), undefined]) {
      const client = await PgliteSqlClient.open(dir, template);
      ids.push(await systemId(client));
      await client.close();
    }
    const own = await PgliteSqlClient.open(freshDir());
    const ownId = await systemId(own);
    await own.close();
    expect(ids[0]).toBe(ids[1]);
    expect(ownId).not.toBe(ids[0]);
  });

  it('opens a data dir that already holds a cluster as it is: a restart keeps its events', async () => {
    const dir = freshDir();
    const first = await SqlEventStore.pglite(dir, { schema: 'es_template', template });
    await first.append('thing-1', [ev('ThingHappened', { n: 1 })], { expectedRevision: 'no_stream' });
    await first.close();
    const again = await SqlEventStore.pglite(dir, { schema: 'es_template', template });
    expect((await again.readStream('thing-1')).map((e) => e.data)).toEqual([{ n: 1 }]);
    await again.close();
    const other = await SqlEventStore.pglite(freshDir(), { schema: 'es_template', template });
    expect(await other.readStream('thing-1')).toEqual([]);
    await other.close();
  });
});
