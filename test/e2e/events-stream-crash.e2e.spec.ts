import { crashableServer } from '../support/spawn-server';
import { client } from '../support/http-client';
import { openSse, type SseClient } from '../support/sse';
import { eventually } from '../support/wait';

/**
 * DECISIONS 20, issue 22: the API is SIGKILLed while 10 SSE clients read; each reconnects with its
 * last id to the restarted API. Every client has seen every event of the filter exactly once, in log
 * order (across both connections), however the kill cut the streams.
 */
describe.each(['embedded', 'server'] as const)('event stream across a crash (%s profile)', (profile) => {
  const server = crashableServer(profile, 'ssecrash');
  afterAll(async () => {
    await server.kill();
    await server.cleanup?.();
  });

  it('10 readers resume after a SIGKILL with Last-Event-ID: nothing lost, nothing twice, in order', async () => {
    await server.start();
    const key = server.apiKey();
    const api = client(server.url, { 'X-Service-API-Key': key });
    const path = '/v1/events/stream?type=providers.ProviderRegistered.v1';
    const create = () => api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-crash' }).catch(() => null);
    // The head before anyone reads: each reader starts right after it.
    const first = await create();
    expect(first?.status).toBe(201);
    const head = (await api.get('/v1/events?type=providers.ProviderRegistered.v1&limit=1')).body.data[0].attributes.position as number;
    const readers: SseClient[] = await Promise.all(Array.from({ length: 10 }, () => openSse(server.url, `${path}&after=${head}`, { 'X-Service-API-Key': key })));
    expect(readers.map((r) => r.status)).toEqual(Array(10).fill(200));

    // Writes keep coming while the API is killed under them.
    let writing = true;
    const writer = (async () => {
      while (writing) await create();
    })();
    await Promise.all(readers.map((r) => r.waitFor((c) => c.events().length >= 5, 60_000)));
    await server.kill();
    writing = false;
    await writer;
    await Promise.all(readers.map((r) => r.closed));
    const before = readers.map((r) => r.events().map(([p]) => p));

    await server.start();
    const resumed = await Promise.all(readers.map((r) => openSse(server.url, path, { 'X-Service-API-Key': key, 'Last-Event-ID': r.lastId ?? String(head) })));
    expect(resumed.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (let i = 0; i < 5; i++) expect((await create())?.status).toBe(201);

    // The log's own list of those events (the index follows the log), oldest first.
    const expected = await eventually(
      async () => ((await api.get('/v1/events?type=providers.ProviderRegistered.v1&limit=100&sort=time')).body.data as Array<{ attributes: { position: number } }>).map((e) => e.attributes.position).filter((p) => p > head),
      (ps) => ps.length > 0 && ps[ps.length - 1] === Math.max(...resumed.map((r) => r.events().at(-1)?.[0] ?? 0)) && resumed.every((r) => r.events().some(([p]) => p === ps[ps.length - 1])),
      60_000,
    );
    for (const [i, r] of resumed.entries()) expect([i, [...before[i]!, ...r.events().map(([p]) => p)]]).toEqual([i, expected]);
    for (const r of resumed) r.close();
  }, 600_000);
});
