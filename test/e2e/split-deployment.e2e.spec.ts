import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../libs/config/src/config';
import { AutoStopper } from '../../sagas/auto-stop/auto-stopper';
import { Platform } from '../../libs/runtime/src/platform';
import { CONTEXT_MODULES } from '../../contexts/registrations';
import { eventually } from '../support/wait';
import { startTestServer, type TestServer } from '../support/test-server';
import { requireEngine } from '../engines';

/**
 * A split deployment as the README describes it: an API node (ROLE=api) that only serves HTTP, and
 * a worker process that runs the projections, sagas, job executor and timers against the same
 * engines. Jobs the API accepts must be carried out by the worker, including the catalog sync.
 */
describe('split deployment: ROLE=api node plus a worker (server profile)', () => {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-split-'));
  const shared = {
    PROFILE: 'server',
    DATA_DIR: dataDir,
    PG_URL: requireEngine('PG_URL'),
    PG_SCHEMA: `es_split_${id}`,
    MONGO_URL: requireEngine('MONGO_URL'),
    MONGO_DB: `rm_split_${id}`,
    REDIS_URL: requireEngine('REDIS_URL'),
    KAFKA_BROKERS: requireEngine('KAFKA_BROKERS'),
    KAFKA_TOPIC_PREFIX: `split${id}`,
    SIMULATOR_LATENCY: 'zero',
  };
  let worker: Platform;
  let srv: TestServer;

  beforeAll(async () => {
    worker = await Platform.open(loadConfig({}, { ...shared, ROLE: 'worker' }), pino({ level: 'silent' }), CONTEXT_MODULES);
    await worker.start();
    srv = await startTestServer('server', { ...shared, ROLE: 'api' });
  }, 60000);
  afterAll(async () => {
    // The worker first: running, it would re-create the read-store database that stop() drops.
    await worker?.close();
    await srv?.stop();
  });

  it('runs an instance create accepted by the API node to completion on the worker', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-split' })).body.data.id;
    const res = await api.post('/v1/instances', { name: 'split-1', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' });
    expect([res.status, res.body.data.attributes.status]).toEqual([202, 'creating']);
    const active = await eventually(() => api.get(`/v1/instances/${res.body.data.id}`), (r) => r.body.data.attributes.status === 'active', 20000);
    expect(active.body.data.attributes.status).toBe('active');
    // The instance turns active before its job records completion.
    const done = await eventually(() => api.get(`/v1/jobs/${res.body.jobId}`), (r) => r.body.data.attributes.status === 'completed', 20000);
    expect(done.body.data.attributes.status).toBe('completed');
  });

  it('runs a catalog sync job on the worker, and the worker arms the auto-stop timer', async () => {
    const admin = srv.as(srv.bootstrap.adminKey);
    const res = await admin.post('/v1/admin/catalog/sync/provider_multicloud');
    expect(res.status).toBe(202);
    const ended = (types: string[]) => types.includes('jobs.JobCompleted.v1') || types.includes('jobs.JobFailed.v1');
    const types = await eventually(async () => (await srv.platform.events.readStream(`job-${res.body.jobId}`)).map((e) => e.type), ended, 20000);
    expect(types.filter((t) => t !== 'jobs.JobEnqueued.v1')).toEqual(['jobs.JobAttemptStarted.v1', 'jobs.JobCompleted.v1']);
    // The worker runs the compute context's auto-stop timer (the API node starts no timers).
    expect(worker.processes.timers.some((t) => t instanceof AutoStopper)).toBe(true);
  });

  it('refuses a projection rebuild on the API node (409: the worker runs the projections), whose operator port says so', async () => {
    const admin = srv.as(srv.bootstrap.adminKey);
    const res = await admin.post('/v1/admin/projections/api_keys/rebuild');
    expect([res.status, res.body.errors?.[0]?.code]).toEqual([409, 'CONFLICT']);
  });
});
