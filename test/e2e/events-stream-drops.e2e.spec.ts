import { v7 as uuidv7 } from 'uuid';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { openSse } from '../support/sse';

/** A small seeded generator (mulberry32): the same cut points are asked on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EVENTS = 10_000;
const CLIENTS = 5;

/**
 * DECISIONS 20 (issue 22): over 10,000 events, SSE clients that drop at random points (after a
 * seeded random number of events, wherever the cut falls in a frame) and reconnect with their last
 * id: together, each has seen every event exactly once, in log order.
 */
describe.each<Profile>(['embedded', 'server'])('event stream with random client drops (%s profile)', (profile) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer(profile, { EVENT_STREAM_HEARTBEAT_MS: '200' });
  }, 180_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it(`${CLIENTS} clients dropping at random over ${EVENTS} events resume with Last-Event-ID: each saw every event once, in order`, async () => {
    const key = srv.bootstrap.apiKey;
    const provider = await srv.as(key).post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-drops' });
    expect(provider.status).toBe(201);
    const stream = `provider-${provider.body.data.id}`;
    const [registered] = await srv.platform.events.readStream(stream);
    const head = await srv.platform.events.headPosition();
    const path = '/v1/events/stream?type=providers.ProviderUpdated.v1';

    const client = async (seed: number) => {
      const random = seeded(seed);
      const seen: number[] = [];
      let last = String(head);
      let connections = 0;
      while (seen.length < EVENTS) {
        const c = await openSse(srv.url, path, { 'X-Service-API-Key': key, 'Last-Event-ID': last });
        expect(c.status).toBe(200);
        connections++;
        // Drop after a random number of events (at most 2,000: five connections at least). The server
        // may cut a reader too slow to keep up (8 MiB buffered, on a loaded machine): a drop like any other.
        const quota = Math.min(EVENTS - seen.length, 1 + Math.floor(random() * 2000));
        await c.waitFor((x) => x.ended || x.frames.filter((f) => f.data !== undefined).length >= quota, 60_000);
        c.close();
        await c.closed;
        seen.push(...c.events().map(([p]) => p));
        last = c.lastId ?? last;
      }
      return { seen, connections };
    };

    // The events are written while the clients read, in commits of a random size.
    const writing = (async () => {
      const random = seeded(7);
      for (let written = 0; written < EVENTS; ) {
        const size = Math.min(EVENTS - written, 1 + Math.floor(random() * 100));
        const events = Array.from({ length: size }, (_, i) => ({
          id: uuidv7(),
          type: 'providers.ProviderUpdated.v1',
          data: { providerId: provider.body.data.id, projectId: registered!.data.projectId, changes: { enabled: (written + i) % 2 === 0 }, updatedAt: new Date().toISOString() },
          metadata: { ...registered!.metadata, schemaVersion: 1 },
        }));
        await srv.platform.events.append(stream, events, { expectedRevision: 'any' });
        written += size;
      }
    })();
    const results = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(1000 + i)));
    await writing;

    const expected = (await srv.platform.events.readStream(stream)).filter((e) => e.type === 'providers.ProviderUpdated.v1').map((e) => e.position);
    expect(expected.length).toBe(EVENTS);
    for (const [i, { seen }] of results.entries()) {
      // Compared as a count and as a first difference: a 10,000-long diff says less.
      const firstDiff = seen.findIndex((p, k) => p !== expected[k]);
      expect([i, seen.length, firstDiff]).toEqual([i, EVENTS, -1]);
    }
    // The drops happened: every client read over several connections.
    expect(results.map((r) => r.connections >= 5)).toEqual(Array(CLIENTS).fill(true));
  }, 120_000);
});
