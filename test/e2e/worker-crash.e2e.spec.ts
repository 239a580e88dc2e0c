import { randomUUID } from 'node:crypto';
import { execFile, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/test-server';
import { spawnWorker } from '../support/spawn-server';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { readTopicUntil } from '../support/kafka';
import { eventually } from '../support/wait';
import { requireEngine } from '../engines';
import type { TestResponse } from '../support/http-client';

/**
 * A worker crash (issue 26): a split deployment (an API node, ROLE=api, in this process; the worker,
 * apps/worker/src/main.ts, in its own), under a stream of keyed creates whose jobs, webhook
 * deliveries and Kafka relay the worker carries out. The worker is SIGKILLed while it does all three
 * and a new one is started: every job reaches a final state, every answered create is in the store
 * once, the read model equals a rebuild, each topic holds every event once in order per key, and no
 * webhook delivery is sent twice under different `webhook-id`s.
 */
const BOUND_MS = 90_000; // a new worker finishes what the killed one left within this

type Worker = { proc: ChildProcess; output: () => string };
let srv: TestServer;
let receiver: WebhookReceiver;
const workers: Worker[] = [];
let env: Record<string, string>;

async function startWorker(): Promise<Worker> {
  const w = spawnWorker(env);
  workers.push(w);
  await eventually(
    async () => {
      if (w.proc.exitCode !== null) throw new Error(`worker exited with ${w.proc.exitCode}:\n${w.output().slice(-3000)}`);
      return w.output().includes('"worker running"');
    },
    (up) => up,
    // A process compiling the TypeScript, then creating the read store's collections and indexes
    // (FerretDB), is slow on a loaded machine: 58 s at load 20, minutes when more runs beside it.
    480_000,
    200,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; the worker's output:\n${w.output().slice(-3000)}`);
  });
  return w;
}

async function kill(w: Worker): Promise<void> {
  // Killed by a signal, a process has signalCode set and exitCode null: its 'exit' has been emitted.
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise((r) => w.proc.once('exit', r));
  w.proc.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  // The API node first (it writes the bootstrap and the data directory), then the worker on the same engines.
  srv = await startTestServer('server', { ROLE: 'api', KAFKA_TOPIC_PREFIX: `wcrash${id}`, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', SIMULATOR_LATENCY: 'realistic', LOG_LEVEL: 'warn' });
  env = {
    PROFILE: 'server',
    DATA_DIR: srv.dataDir,
    PG_URL: srv.env.PG_URL,
    PG_SCHEMA: srv.env.PG_SCHEMA,
    MONGO_URL: srv.env.MONGO_URL,
    MONGO_DB: srv.env.MONGO_DB,
    REDIS_URL: srv.env.REDIS_URL,
    KAFKA_BROKERS: srv.env.KAFKA_BROKERS,
    KAFKA_TOPIC_PREFIX: srv.env.KAFKA_TOPIC_PREFIX,
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    SIMULATOR_LATENCY: 'realistic',
    LOG_LEVEL: 'info',
  };
  await startWorker();
}, 600_000);

afterAll(async () => {
  for (const w of workers) await kill(w);
  await srv?.stop();
  await receiver?.close();
  if (srv) {
    // The topics under this suite's own prefix (a prefix given to startTestServer is kept by it).
    const { Kafka, logLevel } = await import('kafkajs');
    const admin = new Kafka({ clientId: 'e2e-cleanup', brokers: requireEngine('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${srv.env.KAFKA_TOPIC_PREFIX}.`));
    if (topics.length) await admin.deleteTopics({ topics, timeout: 10000 }).catch(() => undefined);
    await admin.disconnect();
  }
}, 300_000);

describe('a worker SIGKILLed mid-work in a split deployment (server profile)', () => {
  it('a new worker finishes every job, delivers every webhook under one webhook-id, relays every event in order per key', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-crash' })).body.data.id as string;
    const hook = await api.post('/v1/notifications/endpoints', { type: 'webhook', url: `${receiver.url}/hooks`, events: ['instance.created', 'job.completed'] });
    expect(hook.status).toBe(201);

    // Keyed creates from three clients until told to stop; a refusal is retried with its key.
    const answered = new Map<string, string>(); // key → instance id
    const jobsOf = new Map<string, string>(); // instance id → job id
    const unexpected: string[] = [];
    let stop = false;
    const create = async (key: string): Promise<TestResponse> => api.post('/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name: `wc-${key.slice(0, 8)}`, providerId }, { 'Idempotency-Key': key });
    const client = async () => {
      while (!stop) {
        const key = randomUUID();
        const r = await eventually(() => create(key), (x) => x.status !== 503 && x.status !== 409, 30_000, 500);
        if (r.status !== 202) unexpected.push(`${r.status} ${r.text.slice(0, 300)}`);
        else (answered.set(key, r.body.data.id), jobsOf.set(r.body.data.id, r.body.jobId));
      }
    };
    const load = Promise.all([client(), client(), client()]);

    // The worker is at work: deliveries have reached the receiver, the relay has published, and jobs are in flight.
    await eventually(async () => receiver.received.length, (n) => n >= 4, 120_000, 100);
    const inFlight = async () => {
      const all = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 1_000_000 });
      const ended = new Set(all.filter((e) => e.type === 'jobs.JobCompleted.v1' || e.type === 'jobs.JobFailed.v1').map((e) => e.streamId));
      return [...jobsOf.values()].filter((j) => !ended.has(`job-${j}`)).length;
    };
    await eventually(inFlight, (n) => n >= 2, 60_000, 100);
    const [first] = workers;
    await kill(first);
    const receivedAtKill = receiver.received.length;
    expect(await inFlight()).toBeGreaterThan(0); // jobs the killed worker had not finished

    // The API node goes on accepting while no worker runs; then a new worker starts.
    const acceptedAtKill = answered.size;
    await eventually(async () => answered.size, (n) => n >= acceptedAtKill + 3, 60_000, 100);
    await startWorker();
    await eventually(async () => receiver.received.length, (n) => n > receivedAtKill, BOUND_MS, 200);
    stop = true;
    await load;
    expect(unexpected).toEqual([]);
    expect(answered.size).toBeGreaterThan(acceptedAtKill);

    // Every job reaches a final state.
    const jobIds = [...jobsOf.values()];
    const final = (types: string[]) => types.includes('jobs.JobCompleted.v1') || types.includes('jobs.JobFailed.v1');
    await eventually(
      async () => {
        const all = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 1_000_000 });
        const ended = new Set(all.filter((e) => final([e.type])).map((e) => e.streamId));
        return jobIds.filter((j) => !ended.has(`job-${j}`));
      },
      (open) => open.length === 0,
      BOUND_MS,
      500,
    );

    // Every answered create in the store once, nothing else.
    const all = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 1_000_000 });
    const requested = all.filter((e) => e.type === 'compute.InstanceRequested.v1').map((e) => e.streamId.replace(/^instance-/, ''));
    expect(new Set(requested).size).toBe(requested.length);
    expect([...requested].sort()).toEqual([...answered.values()].sort());

    // The instances read model (projected by the workers) leaves no instance creating, then equals a rebuild.
    const pageAll = async () => {
      const out: Array<{ id: string; attributes: { status: string } }> = [];
      for (let page = 1; ; page++) {
        const r = await api.get(`/v1/instances?sort=createdAt&limit=100&page=${page}`);
        expect(r.status).toBe(200);
        out.push(...r.body.data);
        if (r.body.data.length < 100) return out;
      }
    };
    await eventually(pageAll, (docs) => docs.length === answered.size && docs.every((d) => d.attributes.status !== 'creating'), BOUND_MS, 500);
    const before = await pageAll();
    // Rebuilt where projections run in this deployment, as an operator does: the CLI beside the worker
    // (the API node refuses with 409).
    const root = path.resolve(__dirname, '../..');
    const cli = await promisify(execFile)(process.execPath, ['-r', path.join(root, 'test/support/ts-register.js'), path.join(root, 'apps/cli/src/main.ts'), 'rebuild', 'instances'], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '', ...env, LOG_LEVEL: 'warn' },
      timeout: 480_000,
    });
    const collection = (JSON.parse(cli.stdout.trim().split('\n').pop()!) as { collection: string }).collection;
    expect(collection).toMatch(/^instances_/);
    srv.platform.projections.catalog.refresh(); // the API node reads the rebuilt collection now, not in 2 s
    expect((await srv.platform.projections.catalog.resolve(srv.platform.projections.projections.find((p) => p.name === 'instances')!))).toBe(collection);
    expect(await pageAll()).toEqual(before);

    // Each topic holds every event of its context once, in order per key (the stream). Across the
    // SIGKILL too: what the killed worker sent past its last checkpoint is found on the topics by the
    // new worker's relay (it reads each partition's last message when it starts) and not sent again.
    const brokers = requireEngine('KAFKA_BROKERS').split(',');
    for (const context of ['compute', 'jobs']) {
      const stored = all.filter((e) => e.type.startsWith(`${context}.`));
      const log = await readTopicUntil(brokers, srv.env.KAFKA_TOPIC_PREFIX, context, (l) => new Set(l.values.map((v) => (JSON.parse(v) as { id: string }).id)).size >= stored.length, BOUND_MS);
      const messages = log.values.map((v) => JSON.parse(v) as { id: string; subject: string; position: number });
      expect(messages.map((m) => m.id).sort()).toEqual(stored.map((e) => e.id).sort());
      const bySubject = new Map<string, number[]>();
      for (const m of messages) bySubject.set(m.subject, [...(bySubject.get(m.subject) ?? []), m.position]);
      for (const [subject, positions] of bySubject) expect({ subject, positions }).toEqual({ subject, positions: stored.filter((e) => e.streamId === subject).map((e) => e.position) });
    }

    // Webhooks: every instance's creation and every job's completion delivered; a delivery sent again
    // (the killed worker had not recorded its outcome) kept its webhook-id.
    const deliveries = () => receiver.received.filter((r) => r.path === '/hooks').map((r) => ({ id: r.headers['webhook-id'], body: JSON.parse(r.body) as { type: string; event: { id: string; subject: string } } }));
    const wanted = [...answered.values()].map((i) => `instance-${i}`);
    await eventually(async () => new Set(deliveries().filter((d) => d.body.type === 'instance.created').map((d) => d.body.event.subject)), (got) => wanted.every((s) => got.has(s)), BOUND_MS, 250);
    const idsOf = new Map<string, Set<string>>();
    for (const d of deliveries()) idsOf.set(d.body.event.id, (idsOf.get(d.body.event.id) ?? new Set()).add(d.id));
    expect([...idsOf].filter(([, ids]) => ids.size !== 1)).toEqual([]);
  }, 600_000);
});
