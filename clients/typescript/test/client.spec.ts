import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ManualClock } from '../../../libs/runtime/src/clock';
import { insecureFetch } from '../../../test/support/insecure-fetch';
import { startTestServer, type TestServer } from '../../../test/support/test-server';
import { eventually } from '../../../test/support/wait';
import { CloudApiError, createCloudClient, retryingFetch, type CloudClient, type StreamedEvent } from '../src';

const root = path.resolve(__dirname, '../../..');

/** The typed client (clients/typescript) against the real server, embedded profile. */
describe('TypeScript client', () => {
  const clock = new ManualClock();
  let srv: TestServer;
  let calls: Array<{ method: string; url: string; idempotencyKey: string | null; status: number }>;
  const counting: typeof fetch = async (input, init) => {
    const r = new Request(input, init);
    const res = await insecureFetch(r);
    calls.push({ method: r.method, url: r.url, idempotencyKey: r.headers.get('idempotency-key'), status: res.status });
    return res;
  };
  const keyOf = async (name: string) => (await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name, role: 'owner', mode: 'live' })).body.data.attributes.key as string;
  const clientFor = (apiKey: string, extra: Partial<Parameters<typeof createCloudClient>[0]> = {}): CloudClient => createCloudClient({ baseUrl: srv.url, apiKey, fetch: counting, ...extra });
  const newProvider = async (cloud: CloudClient) => {
    const { data, response } = await cloud.POST('/v1/providers', { body: { name: 'provider_publiccloud', apiKey: 'sk-client' } });
    expect(response.status).toBe(201);
    return data!.data.id;
  };

  beforeAll(async () => {
    // 40 requests a minute per key: each test uses keys of its own, the 429 test exhausts one.
    srv = await startTestServer('embedded', { SIMULATOR_LATENCY: 'zero', RATE_LIMIT_KEY_PER_MIN: '40', EVENT_STREAM_HEARTBEAT_MS: '200' }, { clock });
  });
  beforeEach(() => {
    calls = [];
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('sends an Idempotency-Key with every POST, pages through a list, and waits for a job', async () => {
    const cloud = clientFor(await keyOf('pages'));
    const providerId = await newProvider(cloud);
    const posted = calls.find((c) => c.method === 'POST')!;
    expect(posted.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const [registered] = await srv.platform.events.readStream(`provider-${providerId}`);
    expect(registered!.metadata.idempotencyKey).toBe(posted.idempotencyKey);

    const ids = [providerId, await newProvider(cloud), await newProvider(cloud), await newProvider(cloud), await newProvider(cloud)];
    const seen: string[] = [];
    for await (const p of cloud.paginate('/v1/providers', { query: { limit: 2 } })) seen.push(p.id);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect(calls.filter((c) => c.method === 'GET' && c.url.includes('/v1/providers?')).length).toBe(3);

    const created = await cloud.POST('/v1/instances', { body: { name: 'web-1', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' } });
    expect(created.response.status).toBe(202);
    const job = await cloud.waitForJob(created.data!.jobId, { intervalMs: 50 });
    expect(job.attributes.status).toBe('completed');
    await expect(cloud.waitForJob('00000000-0000-7000-8000-000000000000')).rejects.toMatchObject({ status: 404 });
    await expect((async () => { for await (const _ of cloud.paginate('/v1/providers', { query: { limit: 500 } })) void _; })()).rejects.toBeInstanceOf(CloudApiError);
  });

  it('retries a 429 after Retry-After', async () => {
    const key = await keyOf('limited');
    // Close to the end of the current one-minute window, so that Retry-After is a second or two.
    const now = clock.now();
    clock.advance(60_000 - (now % 60_000) - 1_500);
    const raw = srv.as(key);
    let status = 0;
    while (status !== 429) status = (await raw.get('/v1/providers?limit=1')).status;
    const cloud = clientFor(key);
    const { response } = await cloud.GET('/v1/providers', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
  });

  it('retries a 5xx with backoff only when the request is repeatable', async () => {
    let hits = 0;
    const flaky: Server = createServer((req, res) => {
      hits += 1;
      res.writeHead(hits <= 2 ? 503 : 200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
    try {
      const waits: number[] = [];
      const f = retryingFetch(fetch, { backoffMs: (n) => (waits.push(n), 5) });
      expect((await f(url)).status).toBe(200);
      expect([hits, waits]).toEqual([3, [0, 1]]);
      hits = 0;
      const noKey = retryingFetch(fetch, { idempotencyKey: false, backoffMs: () => 5 });
      expect((await noKey(url, { method: 'POST', body: '{}' })).status).toBe(503);
      expect(hits).toBe(1);
    } finally {
      flaky.close();
    }
  });

  it('events.stream() resumes by itself after the connection drops: nothing lost, nothing twice', async () => {
    const cloud = clientFor(await keyOf('stream'));
    const abort = new AbortController();
    const got: StreamedEvent[] = [];
    const head = await srv.platform.events.headPosition();
    const reading = (async () => {
      for await (const e of cloud.events.stream({ types: ['providers.ProviderRegistered.v1'], after: head, signal: abort.signal })) got.push(e);
    })();
    const made: number[] = [];
    const position = async () => (await srv.platform.events.readStream(`provider-${await newProvider(cloud)}`))[0]!.position;
    for (let i = 0; i < 3; i++) made.push(await position());
    await waitUntil(() => got.length === 3);
    srv.http.fastify.server.closeAllConnections();
    for (let i = 0; i < 3; i++) made.push(await position());
    await waitUntil(() => got.length >= 6);
    abort.abort();
    await reading;
    expect(got.map((e) => e.position)).toEqual(made);
    expect(got[0]!.event).toMatchObject({ type: 'providers.ProviderRegistered.v1', livemode: true });
    expect(calls.filter((c) => c.url.includes('/v1/events/stream')).length).toBeGreaterThanOrEqual(2);
  });

  it("runs the README's example as written", async () => {
    const readme = fs.readFileSync(path.join(root, 'clients/typescript/README.md'), 'utf8');
    const example = fs.readFileSync(path.join(root, 'clients/typescript/examples/quickstart.ts'), 'utf8');
    expect(readme).toContain(example);
    // The package's name resolves to this folder, as it would once installed.
    const modules = fs.mkdtempSync(path.join(os.tmpdir(), 'client-example-'));
    fs.symlinkSync(path.join(root, 'clients/typescript'), path.join(modules, 'cloud-provisioning-client'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['-r', path.join(root, 'test/support/ts-register.js'), path.join(root, 'clients/typescript/examples/quickstart.ts')], {
        env: { PATH: process.env.PATH, NODE_PATH: modules, NODE_EXTRA_CA_CERTS: path.join(srv.dataDir, 'tls/cert.pem'), CLOUD_API_URL: srv.url, CLOUD_API_KEY: await keyOf('readme') },
        timeout: 60_000,
      });
      expect(stdout).toMatch(/ active\n/);
      expect(stdout).toMatch(/\d+ compute\.InstanceRequested\.v1\n/);
      expect(stdout.trimEnd()).toMatch(/\d+ compute\.InstanceProvisioned\.v1$/);
    } finally {
      fs.rmSync(modules, { recursive: true, force: true });
    }
  });
});

/** Waits (bounded) on a condition of the test's own state, with the shared poller. */
const waitUntil = (ok: () => boolean, timeoutMs = 20_000) => eventually(async () => ok(), (v) => v, timeoutMs, 20);
