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
import { eventually } from '../support/wait';
import { startTestServer, type TestServer } from '../support/test-server';

const batchIdentity = (body: unknown) => {
  const { data, jobId } = body as { data: { id: string; attributes: { action: string; total: number } }; jobId: string };
  return { id: data.id, jobId, action: data.attributes.action, total: data.attributes.total };
};

describe.each(['embedded', 'server'] as const)('a lost answer is the same request run again (%s profile)', (profile) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' });
  }, 120_000);
  afterAll(() => srv?.stop());

  it('answers each keyed write its first answer, replayed, writing nothing again', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-rerun' });
    expect(provider.status).toBe(201);
    const providerId = provider.body.data.id as string;

    const writes: Array<{ name: string; method: 'POST' | 'PUT'; path: string; body: unknown; key: string; status: number; first?: { status: number; body: unknown }; events?: number }> = [
      { name: 'template', method: 'POST', path: '/v1/templates', body: { name: 'tpl-rerun', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' }, key: randomUUID(), status: 201 },
      { name: 'ssh key', method: 'POST', path: `/v1/ssh-keys?providerId=${providerId}`, body: { name: 'key-rerun', publicKey: ed25519Key() }, key: randomUUID(), status: 201 },
      { name: 'volume', method: 'POST', path: '/v1/storage/volumes', body: { name: 'vol-rerun', sizeGb: 10, region: 'us-east-1' }, key: randomUUID(), status: 202 },
      { name: 'instance', method: 'POST', path: '/v1/instances', body: { name: 'inst-rerun', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' }, key: randomUUID(), status: 202 },
      { name: 'server', method: 'POST', path: '/v1/servers', body: { name: 'vm-rerun', hostname: 'vm-rerun', site: 'us-east-1', plan: 'pc-t3-medium', operating_system: 'debian_12', billing: 'monthly', role: 'VirtualMachine', provider: providerId }, key: randomUUID(), status: 201 },
      { name: 'provider', method: 'POST', path: '/v1/providers', body: { name: 'provider_baremetal', apiKey: 'sk-rerun-metal' }, key: randomUUID(), status: 201 },
      { name: 'file', method: 'POST', path: '/v1/files', body: { path: '/rerun', name: 'file-rerun', content: 'v1' }, key: randomUUID(), status: 201 },
    ];
    for (const w of writes) {
      const first = await api.send(w.method, w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: first.status }).toEqual({ name: w.name, status: w.status });
      w.first = { status: first.status, body: first.body };
      w.events = await eventsWrittenUnder(srv, w.key);
      expect({ name: w.name, wrote: w.events > 0 }).toEqual({ name: w.name, wrote: true });
    }

    // Writes on what the creates made: an instance action, a batch over it, a file's new content.
    const instanceId = (writes.find((w) => w.name === 'instance')!.first!.body as { data: { id: string } }).data.id;
    await eventually(() => api.get(`/v1/instances/${instanceId}`), (r) => r.body.data?.attributes.status === 'active');
    const fileId = (writes.find((w) => w.name === 'file')!.first!.body as { data: { id: string } }).data.id;
    // A checkout session to apply a promo code to (the code is retired before the re-run: the re-run answers what its first run applied).
    const admin = srv.as(srv.bootstrap.adminKey);
    expect((await admin.send('PUT', '/v1/admin/billing/promos/RERUN5', { amountCents: 500, currency: 'USD' })).status).toBe(200);
    const checkout = await api.post('/v1/billing/checkout/setup-intent', { amountCents: 2000 });
    expect(checkout.status).toBe(201);
    const more: typeof writes = [
      { name: 'checkout promo', method: 'POST', path: `/v1/billing/checkout/${checkout.body.data.id}/promo`, body: { code: 'RERUN5' }, key: randomUUID(), status: 200 },
      { name: 'team member', method: 'POST', path: '/v1/iam/team/members', body: { email: 'rerun@example.com', role: 'viewer' }, key: randomUUID(), status: 201 },
      { name: 'instance action', method: 'POST', path: `/v1/instances/${instanceId}/actions`, body: { data: { type: 'actions', attributes: { action: 'restart' } } }, key: randomUUID(), status: 202 },
      { name: 'batch', method: 'POST', path: '/v1/batch/batch/action', body: { action: 'stop', resourceType: 'instances', resourceIds: [instanceId] }, key: randomUUID(), status: 202 },
      { name: 'file content', method: 'PUT', path: `/v1/files/${fileId}`, body: { content: 'v2' }, key: randomUUID(), status: 200 },
    ];
    for (const w of more) {
      const first = await api.send(w.method, w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: first.status, text: first.status === w.status ? '' : first.text }).toEqual({ name: w.name, status: w.status, text: '' });
      w.first = { status: first.status, body: first.body };
      w.events = await eventsWrittenUnder(srv, w.key);
      writes.push(w);
    }
    // An API key: its answer again, but for the secret, which was never stored.
    const apiKey = { body: { name: 'apikey-rerun', role: 'developer' }, key: randomUUID() };
    const issued = await api.post('/v1/api-keys', apiKey.body, { 'Idempotency-Key': apiKey.key });
    expect(issued.status).toBe(201);

    expect((await admin.send('PUT', '/v1/admin/billing/promos/RERUN5', { amountCents: 500, currency: 'USD', active: false })).status).toBe(200);
    expect(await loseAnswers(srv, [...writes.map((w) => w.key), apiKey.key])).toEqual([...writes.map((w) => w.key), apiKey.key].sort());

    for (const w of writes) {
      const retry = await api.send(w.method, w.path, w.body, { 'Idempotency-Key': w.key });
      // A batch answers once fanned out, with its items' outcomes as they are by then: the batch and its job are the same.
      const shown = (r: { body: unknown }) => (w.name === 'batch' ? batchIdentity(r.body) : r.body);
      expect({ name: w.name, status: retry.status, replayed: retry.headers['idempotent-replayed'], body: shown(retry) }).toEqual({ name: w.name, status: w.first!.status, replayed: 'true', body: shown(w.first!) });
      expect({ name: w.name, events: await eventsWrittenUnder(srv, w.key) }).toEqual({ name: w.name, events: w.events });
      // Stored: the next retry replays the same bytes.
      const again = await api.send(w.method, w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: again.status, text: again.text }).toEqual({ name: w.name, status: retry.status, text: retry.text });
    }

    const reissued = await api.post('/v1/api-keys', apiKey.body, { 'Idempotency-Key': apiKey.key });
    const { key: secret, ...attributes } = issued.body.data.attributes;
    expect({ status: reissued.status, replayed: reissued.headers['idempotent-replayed'], data: reissued.body.data }).toEqual({ status: 201, replayed: 'true', data: { ...issued.body.data, attributes } });
    expect(reissued.body.meta.key).toMatch(/Not shown/);
    expect(reissued.text).not.toContain(secret);
    expect((await api.get('/v1/api-keys?limit=100')).body.data.filter((k: { attributes: { name: string } }) => k.attributes.name === 'apikey-rerun')).toHaveLength(1);
  }, 180_000);
});
