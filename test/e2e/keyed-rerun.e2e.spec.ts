/**
 * DECISIONS 5, issue 21 §2: a keyed write whose answer was lost (the process died between its commit
 * and its answer) is answered by running the same request again: the handler, run as the writing
 * request, derives the same ids from the key, finds its own earlier events instead of writing again,
 * and answers from them through its live read path. Here the records are put back to the state such a
 * kill leaves in a running server (the spawned, SIGKILLed server is idempotency-recovery.e2e.spec.ts).
 */
import { randomUUID } from 'node:crypto';
import { eventsWrittenUnder, loseAnswers } from '../support/lost-answers';
import { ed25519Key } from '../support/ssh-keys';
import { startTestServer, type TestServer } from '../support/test-server';

describe.each(['embedded', 'server'] as const)('a lost answer is the same request run again (%s profile)', (profile) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer(profile);
  }, 120_000);
  afterAll(() => srv?.stop());

  it('answers each keyed write its first answer, replayed, writing nothing again', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-rerun' });
    expect(provider.status).toBe(201);
    const providerId = provider.body.data.id as string;

    const writes: Array<{ name: string; method: 'post' | 'patch'; path: string; body: unknown; key: string; first?: { status: number; body: unknown }; events?: number }> = [
      { name: 'template', method: 'post', path: '/v1/templates', body: { name: 'tpl-rerun', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' }, key: randomUUID() },
      { name: 'ssh key', method: 'post', path: `/v1/ssh-keys?providerId=${providerId}`, body: { name: 'key-rerun', publicKey: ed25519Key() }, key: randomUUID() },
      { name: 'volume', method: 'post', path: '/v1/storage/volumes', body: { name: 'vol-rerun', sizeGb: 10, region: 'us-east-1' }, key: randomUUID() },
    ];
    for (const w of writes) {
      const first = await api[w.method](w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: first.status }).toEqual({ name: w.name, status: expect.any(Number) });
      expect(first.status).toBeLessThan(300);
      w.first = { status: first.status, body: first.body };
      w.events = await eventsWrittenUnder(srv, w.key);
      expect({ name: w.name, wrote: w.events > 0 }).toEqual({ name: w.name, wrote: true });
    }

    expect(await loseAnswers(srv, writes.map((w) => w.key))).toEqual(writes.map((w) => w.key).sort());

    for (const w of writes) {
      const retry = await api[w.method](w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: retry.status, replayed: retry.headers['idempotent-replayed'], body: retry.body }).toEqual({ name: w.name, status: w.first!.status, replayed: 'true', body: w.first!.body });
      expect({ name: w.name, events: await eventsWrittenUnder(srv, w.key) }).toEqual({ name: w.name, events: w.events });
      // Stored: the next retry replays the same bytes.
      const again = await api[w.method](w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: again.status, text: again.text }).toEqual({ name: w.name, status: retry.status, text: retry.text });
    }
  }, 180_000);
});
