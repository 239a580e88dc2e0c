/**
 * Issue 16 §2 / DECISIONS 5: a keyed create whose write committed but whose answer was never stored
 * (the process died between the two) answers its retry with the route's real answer, rebuilt from
 * what was written, not a generic one; and it is not carried out a second time.
 *
 * The server runs in its own process and is SIGKILLed. Which requests a kill catches between commit
 * and answer is chance (the random version is crash-safety.e2e.spec.ts); here each key's record is
 * put back to the state such a kill leaves (`committed`, no response) while the server is down, so
 * every resource below is recovered on every run (on the server profile the answers Redis cached are
 * removed too: a key that was never answered has none).
 */
import { randomUUID } from 'node:crypto';
import { client, type TestResponse } from '../support/http-client';
import { crashableServer } from '../support/spawn-server';
import { ed25519Key } from '../support/ssh-keys';
import { eventually } from '../support/wait';

describe.each(['embedded', 'server'] as const)('idempotent answers rebuilt after a crash (%s profile)', (profile) => {
  const server = crashableServer(profile, 'recover');
  afterAll(() => server.cleanup());

  it('answers each create its real answer (201/202 with the resource as written), once, and replays it from then on', async () => {
    await server.start();
    const apiKey = server.apiKey();
    const api = client(server.url, { 'X-Service-API-Key': apiKey });
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-recover' });
    expect(provider.status).toBe(201);
    const providerId = provider.body.data.id as string;

    const creates: Array<{ name: string; path: string; body: unknown; status: number; key: string; first?: TestResponse }> = [
      { name: 'template', path: '/v1/templates', body: { name: 'tpl-recover', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' }, status: 201, key: randomUUID() },
      { name: 'ssh key', path: `/v1/ssh-keys?providerId=${providerId}`, body: { name: 'key-recover', publicKey: ed25519Key() }, status: 201, key: randomUUID() },
      { name: 'instance', path: '/v1/instances', body: { name: 'inst-recover', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' }, status: 202, key: randomUUID() },
      { name: 'volume', path: '/v1/storage/volumes', body: { name: 'vol-recover', sizeGb: 10, region: 'us-east-1' }, status: 202, key: randomUUID() },
      { name: 'api key', path: '/v1/api-keys', body: { name: 'apikey-recover', role: 'developer' }, status: 201, key: randomUUID() },
      { name: 'provider', path: '/v1/providers', body: { name: 'provider_baremetal', apiKey: 'sk-recover-metal' }, status: 201, key: randomUUID() },
      { name: 'file', path: '/v1/files', body: { path: '/recover', name: 'file-recover', content: 'v1' }, status: 201, key: randomUUID() },
    ];
    for (const c of creates) {
      c.first = await api.post(c.path, c.body, { 'Idempotency-Key': c.key });
      expect({ name: c.name, status: c.first.status }).toEqual({ name: c.name, status: c.status });
    }
    // A batch over the instance just created (its outcome moves on; the batch and its job id do not).
    const instanceId = creates.find((c) => c.name === 'instance')!.first!.body.data.id as string;
    const batch = { path: '/v1/batch/batch/action', body: { action: 'stop', resourceType: 'instances', resourceIds: [instanceId] }, key: randomUUID() };
    const batchFirst = await api.post(batch.path, batch.body, { 'Idempotency-Key': batch.key });
    expect(batchFirst.status).toBe(202);
    // A manual retry of a failed job (first written to the instance's stream: its reset names the job).
    const doomed = await api.post('/v1/instances', { name: 'doomed-job', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium', tags: { simulate: 'fail:always' } });
    expect(doomed.status).toBe(202);
    await eventually(() => api.get(`/v1/jobs/${doomed.body.jobId}`), (r) => r.body.data?.attributes.status === 'failed', 60_000, 200);
    const retryJob = { path: `/v1/jobs/${doomed.body.jobId}/retry`, key: randomUUID() };
    const retryFirst = await api.post(retryJob.path, {}, { 'Idempotency-Key': retryJob.key });
    expect(retryFirst.body).toEqual({ data: { jobId: doomed.body.jobId, status: 'retrying' } });

    // The kill, and each record as a kill between the commit and the answer leaves it.
    await server.kill();
    const keys = [...creates.map((c) => c.key), batch.key, retryJob.key];
    const lost = await server.loseAnswers(keys);
    expect(lost.keys).toEqual([...keys].sort());
    // Nor is an answer cached in Redis (only answered keys are).
    if (profile === 'server') expect(lost.uncached).toBe(keys.length);

    await server.start();
    const api2 = client(server.url, { 'X-Service-API-Key': apiKey });
    for (const c of creates) {
      const retry = await api2.post(c.path, c.body, { 'Idempotency-Key': c.key });
      expect({ name: c.name, status: retry.status, replayed: retry.headers['idempotent-replayed'] }).toEqual({ name: c.name, status: c.status, replayed: 'true' });
      if (c.name === 'api key') {
        // The key it issued, without the secret (never stored): the rest is what the create answered.
        const { key: secret, ...attributes } = c.first!.body.data.attributes;
        expect(secret).toMatch(/^svc_/);
        expect(retry.body.data).toEqual({ ...c.first!.body.data, attributes });
        expect(retry.body.meta.key).toMatch(/Not shown/);
        expect(retry.text).not.toContain(secret);
      } else {
        // The same answer the create gave: the resource exactly as of the write (and its job).
        expect({ name: c.name, body: retry.body }).toEqual({ name: c.name, body: c.first!.body });
      }
      // Stored: later retries replay these bytes.
      const again = await api2.post(c.path, c.body, { 'Idempotency-Key': c.key });
      expect({ name: c.name, status: again.status, text: again.text }).toEqual({ name: c.name, status: retry.status, text: retry.text });
    }

    const batchRetry = await api2.post(batch.path, batch.body, { 'Idempotency-Key': batch.key });
    expect({ status: batchRetry.status, replayed: batchRetry.headers['idempotent-replayed'] }).toEqual({ status: 202, replayed: 'true' });
    expect({ id: batchRetry.body.data.id, jobId: batchRetry.body.jobId, action: batchRetry.body.data.attributes.action, total: batchRetry.body.data.attributes.total }).toEqual({
      id: batchFirst.body.data.id, jobId: batchFirst.body.jobId, action: 'stop', total: 1,
    });

    const retryAgain = await api2.post(retryJob.path, {}, { 'Idempotency-Key': retryJob.key });
    expect({ status: retryAgain.status, replayed: retryAgain.headers['idempotent-replayed'], body: retryAgain.body }).toEqual({ status: 200, replayed: 'true', body: retryFirst.body });

    // Nothing was carried out twice: one of each.
    const names = async (listPath: string) => {
      const list = await api2.get(listPath);
      expect(list.status).toBe(200);
      return list.body.data.map((d: { attributes: { name: string } }) => d.attributes.name).filter((n: string) => n.endsWith('-recover'));
    };
    expect(await names('/v1/templates?limit=100')).toEqual(['tpl-recover']);
    expect(await names(`/v1/ssh-keys?providerId=${providerId}&limit=100`)).toEqual(['key-recover']);
    expect(await names('/v1/instances?limit=100')).toEqual(['inst-recover']);
    expect(await names('/v1/storage/volumes?limit=100')).toEqual(['vol-recover']);
    expect(await names('/v1/api-keys?limit=100')).toEqual(['apikey-recover']);
    expect((await api2.get('/v1/providers?limit=100')).body.data.filter((d: { attributes: { name: string } }) => d.attributes.name === 'provider_baremetal')).toHaveLength(1);
    expect((await api2.get('/v1/files?limit=100')).body.data.filter((d: { name: string }) => d.name === 'file-recover')).toHaveLength(1);
  }, 240000);
});
