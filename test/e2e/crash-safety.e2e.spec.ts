import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { MongoClient } from 'mongodb';
import { client } from '../support/http-client';
import { eventually } from '../support/wait';
import { requireEngine } from '../engines';

const ROOT = path.resolve(__dirname, '../..');

/** The real server in its own process, so the test can SIGKILL it mid-flight. */
function spawnServer(env: Record<string, string>, port: number): { proc: ChildProcess; output: () => string } {
  let out = '';
  const proc = spawn(process.execPath, ['-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, 'apps/api/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  return { proc, output: () => out };
}

async function waitUp(url: string, timeoutMs = 60000): Promise<void> {
  const health = () => client(url).get('/v1/health/health').then((r) => r.status, () => 0); // 0: not listening yet
  if ((await eventually(health, (status) => status === 200, timeoutMs, 200)) !== 200) throw new Error(`server at ${url} did not come up`);
}

describe('crash safety: SIGKILL while 200 creations are in flight', () => {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-crash-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const url = `https://127.0.0.1:${port}`;
  const env = {
    PROFILE: 'server',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PG_URL: requireEngine('PG_URL'),
    PG_SCHEMA: `crash_${id}`,
    MONGO_URL: requireEngine('MONGO_URL'),
    MONGO_DB: `crash_${id}`,
    REDIS_URL: requireEngine('REDIS_URL'),
    KAFKA_BROKERS: requireEngine('KAFKA_BROKERS'),
    KAFKA_TOPIC_PREFIX: `crash${id}`,
    RATE_LIMIT_PROJECT_PER_MIN: '1000000',
    RATE_LIMIT_KEY_PER_MIN: '1000000',
    RATE_LIMIT_IP_PER_MIN: '1000000',
    SIMULATOR_LATENCY: 'realistic',
    JOB_CONCURRENCY: '16',
  };
  let server: ReturnType<typeof spawnServer> | null = null;

  afterAll(async () => {
    server?.proc.kill('SIGKILL');
    const pg = new Client({ connectionString: env.PG_URL });
    await pg.connect();
    await pg.query(`DROP SCHEMA IF EXISTS "${env.PG_SCHEMA}" CASCADE`);
    await pg.end();
    const mongo = await MongoClient.connect(env.MONGO_URL);
    await mongo.db(env.MONGO_DB).dropDatabase();
    await mongo.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends every answered create with its job completed or failed, none twice, no retry timer lost', async () => {
    server = spawnServer(env, port);
    await waitUp(url);
    const { apiKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
    const api = client(url, { 'X-Service-API-Key': apiKey });
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-crash' });
    expect(provider.status).toBe(201);

    // 200 creations; every fourth fails its first attempt, so retry timers are pending at the kill.
    const accepted: Array<{ instanceId: string; jobId: string }> = [];
    const requests = Array.from({ length: 200 }, (_, i) =>
      api
        .post('/v1/instances', {
          name: `crash-${i}`,
          providerId: provider.body.data.id,
          region: 'us-east-1',
          instanceType: 'pc-t3-medium',
          tags: i % 4 === 0 ? { simulate: 'fail:1' } : {},
        })
        .then((r) => {
          if (r.status === 202) accepted.push({ instanceId: r.body.data.id, jobId: r.body.jobId });
        })
        .catch(() => undefined), // connections cut by the kill
    );
    // Kill once a good share has been answered and jobs are in flight.
    await eventually(async () => accepted.length, (n) => n >= 40, 60000, 20);
    server.proc.kill('SIGKILL');
    await Promise.all(requests);
    await new Promise((r) => server!.proc.once('exit', r).unref?.() ?? r(null));
    expect(accepted.length).toBeGreaterThanOrEqual(20);

    const pg = new Client({ connectionString: env.PG_URL });
    await pg.connect();
    try {
      const jobStates = async () => {
        const rows = await pg.query(`SELECT stream_id, type FROM "${env.PG_SCHEMA}".events WHERE stream_id LIKE 'job-%' ORDER BY position`);
        const last = new Map<string, string>();
        for (const r of rows.rows) last.set(r.stream_id, r.type);
        return last;
      };
      const before = await jobStates();
      const unfinished = accepted.filter((a) => !['jobs.JobCompleted.v1', 'jobs.JobFailed.v1'].includes(before.get(`job-${a.jobId}`) ?? ''));
      expect(unfinished.length).toBeGreaterThan(0); // the kill really cut work off

      server = spawnServer(env, port);
      await waitUp(url);
      const done = (m: Map<string, string>) => accepted.every((a) => m.get(`job-${a.jobId}`) === 'jobs.JobCompleted.v1' || m.get(`job-${a.jobId}`) === 'jobs.JobFailed.v1');
      const after = await eventually(jobStates, done, 240000, 500);
      const stuck = accepted.filter((a) => !['jobs.JobCompleted.v1', 'jobs.JobFailed.v1'].includes(after.get(`job-${a.jobId}`) ?? 'none'));
      if (stuck.length > 0) {
        const sample = await pg.query(`SELECT stream_id, type, data FROM "${env.PG_SCHEMA}".events WHERE stream_id = ANY($1) ORDER BY position`, [
          stuck.slice(0, 3).flatMap((a) => [`job-${a.jobId}`, `instance-${a.instanceId}`]),
        ]);
        const head = await pg.query(`SELECT position FROM "${env.PG_SCHEMA}".head`);
        process.stderr.write(`stuck sample: ${JSON.stringify(sample.rows.map((r) => [r.stream_id.slice(0, 14), r.type]))}\nhead ${JSON.stringify(head.rows)}\nserver: ${server.output().slice(-3000)}\n`);
      }
      expect(stuck).toEqual([]);

      // Nothing twice: one JobEnqueued and at most one completion per job, one provisioning per instance.
      const counts = await pg.query(
        `SELECT stream_id, type, count(*)::int AS n FROM "${env.PG_SCHEMA}".events
         WHERE type IN ('jobs.JobEnqueued.v1', 'jobs.JobCompleted.v1', 'jobs.JobFailed.v1', 'compute.InstanceProvisioned.v1', 'compute.InstanceRequested.v1')
         GROUP BY stream_id, type HAVING count(*) > 1`,
      );
      expect(counts.rows).toEqual([]);
      const provisioned = await pg.query(`SELECT count(*)::int AS n FROM "${env.PG_SCHEMA}".events WHERE type = 'compute.InstanceProvisioned.v1'`);
      const requested = await pg.query(`SELECT count(*)::int AS n FROM "${env.PG_SCHEMA}".events WHERE type = 'compute.InstanceRequested.v1'`);
      expect(provisioned.rows[0].n).toBeLessThanOrEqual(requested.rows[0].n);
      // The retried ones (fail:1) completed on a later attempt after the restart re-armed their timers.
      const api2 = client(url, { 'X-Service-API-Key': apiKey });
      // The read models follow the log they were checked against above (bounded wait for them).
      for (const a of accepted.slice(0, 10)) {
        const j = await eventually(() => api2.get(`/v1/jobs/${a.jobId}`), (r) => r.body.data?.attributes.status === 'completed', 60000, 200);
        expect(j.body.data.attributes.status).toBe('completed');
        const inst = await eventually(() => api2.get(`/v1/instances/${a.instanceId}`), (r) => r.body.data?.attributes.status === 'active', 60000, 200);
        expect(inst.body.data.attributes.status).toBe('active');
      }
      const retriedAfterRestart = await pg.query(
        `SELECT count(DISTINCT stream_id)::int AS n FROM "${env.PG_SCHEMA}".events WHERE type = 'jobs.JobAttemptStarted.v1' AND (data->>'attempt')::int = 2`,
      );
      expect(retriedAfterRestart.rows[0].n).toBeGreaterThan(0);
    } finally {
      await pg.end();
    }
  }, 420000);
});
