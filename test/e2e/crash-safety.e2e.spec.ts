import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { MongoClient } from 'mongodb';
import { client } from '../support/http-client';
import { eventually } from '../support/wait';
import { crashableServer, spawnServer, waitUp } from '../support/spawn-server';
import { requireEngine } from '../engines';
import { unusedPort } from '../support/ports';

describe('crash safety: SIGKILL while 200 creations are in flight', () => {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-crash-'));
  const port = unusedPort();
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
    await waitUp(url, server);
    // The process's own figures, which the process entry (not startServer) turns on: the soak reads them.
    const metrics = await client(url).get('/v1/health/metrics');
    for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) expect(metrics.text).toMatch(new RegExp(`^${name} \\d`, 'm'));
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
      await waitUp(url, server);
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

/**
 * Issue 16 §2: a client retrying, with its Idempotency-Key, a create it never got an answer for (the
 * process was killed) must not get a second instance, and a key answered before the crash replays.
 */
describe.each(['embedded', 'server'] as const)('crash safety (%s profile): Idempotency-Key survives a SIGKILL', (profile) => {
  const server = crashableServer(profile, 'idem');
  afterAll(() => server.cleanup());

  /** Instance names requested more than once, and how many were requested, from the event store itself. */
  async function requestedInStore(): Promise<{ duplicates: unknown[]; names: number; idempotencyRows: number }> {
    const rows = await server.query<{ name: string; n: number }>(
      `SELECT data->>'name' AS name, count(*)::int AS n FROM "${server.storeSchema}".events WHERE type = 'compute.InstanceRequested.v1' AND data->>'name' LIKE 'idem-%' GROUP BY 1`,
    );
    const [idem] = await server.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${server.storeSchema}".idempotency WHERE state IN ('committed', 'completed')`);
    return { duplicates: rows.filter((r) => r.n > 1), names: rows.length, idempotencyRows: idem.n };
  }

  it('retries of unanswered keyed creates after a SIGKILL create nothing twice; answered keys replay byte for byte', async () => {
    await server.start();
    const apiKey = server.apiKey();
    const api = client(server.url, { 'X-Service-API-Key': apiKey });
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-idem' });
    expect(provider.status).toBe(201);

    const N = 100;
    const body = (i: number) => ({ name: `idem-${i}`, providerId: provider.body.data.id, region: 'us-east-1', instanceType: 'pc-t3-medium' });
    const keys = Array.from({ length: N }, () => randomUUID());
    const answered = new Map<number, { status: number; text: string; id: string }>();
    const post = (i: number) => api.post('/v1/instances', body(i), { 'Idempotency-Key': keys[i] });
    const requests = keys.map((_k, i) =>
      post(i)
        .then((r) => {
          if (r.status === 202) answered.set(i, { status: r.status, text: r.text, id: r.body.data.id });
        })
        .catch(() => undefined), // connections cut by the kill
    );
    await eventually(async () => answered.size, (n) => n >= 10, 60000, 5);
    await server.kill();
    await Promise.all(requests);
    const unanswered = keys.map((_k, i) => i).filter((i) => !answered.has(i));
    expect(unanswered.length).toBeGreaterThan(0); // the kill really cut requests off
    const before = await (async () => {
      if (profile !== 'server') return null;
      return requestedInStore();
    })();

    await server.start();
    const api2 = client(server.url, { 'X-Service-API-Key': apiKey });
    // Every unanswered request, and a few answered ones, again with their keys. A reservation left in
    // progress by the crash lapses with its lease (409 IDEMPOTENCY_IN_PROGRESS until then).
    const retried = [...unanswered, ...[...answered.keys()].slice(0, 5)];
    const retry = (i: number) =>
      eventually(
        () => api2.post('/v1/instances', body(i), { 'Idempotency-Key': keys[i] }),
        (r) => !(r.status === 409 && r.body?.errors?.[0]?.code === 'IDEMPOTENCY_IN_PROGRESS'),
        120000,
        250,
      );
    const results = new Map<number, Awaited<ReturnType<typeof retry>>>();
    for (let at = 0; at < retried.length; at += 20) {
      const part = retried.slice(at, at + 20);
      (await Promise.all(part.map(retry))).forEach((r, j) => results.set(part[j], r));
    }
    const recovered: number[] = [];
    for (const i of retried) {
      const r = results.get(i)!;
      const first = answered.get(i);
      if (first) {
        // Answered before the crash: the same bytes, marked as a replay.
        expect({ i, status: r.status, replayed: r.headers['idempotent-replayed'], text: r.text }).toEqual({ i, status: first.status, replayed: 'true', text: first.text });
      } else {
        expect({ i, status: r.status }).toEqual({ i, status: 202 });
        expect(r.body.data.attributes.name).toBe(`idem-${i}`);
        if (r.headers['idempotent-replayed'] === 'true') recovered.push(i); // written before the kill, answer rebuilt
      }
    }
    // Once more: every key now replays what it answered the first time after the restart.
    for (const i of unanswered.slice(0, 10)) {
      const again = await api2.post('/v1/instances', body(i), { 'Idempotency-Key': keys[i] });
      expect({ i, replayed: again.headers['idempotent-replayed'], text: again.text }).toEqual({ i, replayed: 'true', text: results.get(i)!.text });
    }
    // The read model holds each name once.
    const seen = new Map<string, number>();
    for (let page = 1; ; page++) {
      const list = await api2.get(`/v1/instances?limit=100&page=${page}`);
      expect(list.status).toBe(200);
      for (const d of list.body.data) if (String(d.attributes.name).startsWith('idem-')) seen.set(d.attributes.name, (seen.get(d.attributes.name) ?? 0) + 1);
      if (list.body.data.length < 100) break;
    }
    expect([...seen.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(seen.size).toBe(N);
    // ... and so does the event store: one InstanceRequested per name, every key recorded.
    const store = await requestedInStore();
    expect(store.duplicates).toEqual([]);
    expect(store.names).toBe(N);
    expect(store.idempotencyRows).toBeGreaterThanOrEqual(N);
    process.stdout.write(
      `[idempotency ${profile}] ${N} keyed creates, killed after ${answered.size} answers; ${unanswered.length} unanswered retried` +
        ` (${recovered.length} had been written before the kill and were recovered, ${unanswered.length - recovered.length} ran for the first time)` +
        `, 5 answered replayed; duplicates in store: ${store.duplicates.length}, in read model: 0${before ? `; names in store at the kill: ${before.names}` : ''}\n`,
    );
  }, 420000);
});
