/** The real server in its own process (apps/api/src/main.ts), for tests that SIGKILL it and start it again. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { Client } from 'pg';
import { MongoClient } from 'mongodb';
import { client } from './http-client';
import { eventually } from './wait';
import { unusedPort } from './ports';
import { requireEngine } from '../engines';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';

const ROOT = path.resolve(__dirname, '../..');

export interface SpawnedServer {
  proc: ChildProcess;
  output: () => string;
}

/**
 * The real server in its own process (or, with `entry`, another launcher of the repository, such as
 * the gateway's apps/launcher/src/gateway-main.ts), so the test can SIGKILL it mid-flight. With TEST_CLOCK_OFFSET_MS
 * in `env` it runs on a clock this process moves (apps/api/src/main.ts), over an IPC channel.
 */
export function spawnServer(env: Record<string, string>, port: number, entry = 'apps/api/src/main.ts'): SpawnedServer {
  return spawnApp(entry, { ...env, PORT: String(port) });
}

/** The worker of a split deployment (apps/worker/src/main.ts) in its own process, for tests that SIGKILL it. */
export function spawnWorker(env: Record<string, string>): SpawnedServer {
  return spawnApp('apps/worker/src/main.ts', { ...env, ROLE: 'worker' });
}

function spawnApp(main: string, env: Record<string, string>): SpawnedServer {
  let out = '';
  const proc = spawn(process.execPath, ['-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, main)], {
    cwd: ROOT,
    // An empty value removes the variable (the embedded profile must not see the engines' URLs).
    env: Object.fromEntries(Object.entries({ ...process.env, NODE_OPTIONS: '', ...env }).filter(([, v]) => v !== '')),
    stdio: env.TEST_CLOCK_OFFSET_MS === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  return { proc, output: () => out };
}

/** Moves the clock of a process spawned with TEST_CLOCK_OFFSET_MS `ms` forward; resolves once the process has moved it. */
export async function advanceClockOf(s: SpawnedServer, ms: number): Promise<void> {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`advanceClock: ${ms} is not a whole number of milliseconds`);
  if (s.proc.exitCode !== null) throw new Error('advanceClock: the server is not running');
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      s.proc.off('message', onMessage);
      s.proc.off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onMessage = (m: { clockAdvancedMs?: number }) => m?.clockAdvancedMs === ms && done();
    const onExit = () => done(new Error(`advanceClock: the server exited before moving its clock\n${s.output()}`));
    s.proc.on('message', onMessage);
    s.proc.once('exit', onExit);
    s.proc.send({ advanceClockMs: ms }, (err) => err && done(err));
  });
}

/**
 * Resolves once the server answers its health check. With `server` (what spawnServer returned) it
 * fails at once, with the server's output, when the process has exited (a port taken, a crash at
 * start) instead of waiting out the bound; the bound is generous because a process that compiles
 * the TypeScript at start takes long on a loaded machine (over 60 s was seen at load 13).
 */
export async function waitUp(url: string, server?: { proc: ChildProcess; output: () => string }, timeoutMs = 240000, healthPath = '/v1/health/health'): Promise<void> {
  const health = async () => {
    if (server && server.proc.exitCode !== null) throw new Error(`server for ${url} exited with ${server.proc.exitCode} before answering; its output:\n${server.output().slice(-4000)}`);
    return client(url).get(healthPath).then((r) => r.status, () => 0); // 0: not listening yet
  };
  if ((await eventually(health, (status) => status === 200, timeoutMs, 200)) !== 200) throw new Error(`server at ${url} did not come up`);
}

/**
 * A server of one profile in its own process, with its own data directory and (server profile) its
 * own schema, database and topics: started, SIGKILLed and started again on the same data; `query`
 * reads or changes the event store's database (while the server is down for PGlite, which is one
 * process's database); `advanceClock` moves the server's clock forward instead of waiting (a restart
 * keeps the time it was moved to); `cleanup` drops everything.
 */
export function crashableServer(profile: 'embedded' | 'server', label: string) {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `cloud-api-${label}-`));
  const port = unusedPort();
  const url = `https://127.0.0.1:${port}`;
  const schema = `${label}_${id}`;
  const common = { DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PROJECT_PER_MIN: '1000000', RATE_LIMIT_KEY_PER_MIN: '1000000', RATE_LIMIT_IP_PER_MIN: '1000000', SIMULATOR_LATENCY: 'realistic' };
  const env: Record<string, string> =
    profile === 'server'
      ? { ...common, PROFILE: 'server', PG_URL: requireEngine('PG_URL'), PG_SCHEMA: schema, MONGO_URL: requireEngine('MONGO_URL'), MONGO_DB: schema, REDIS_URL: requireEngine('REDIS_URL'), KAFKA_BROKERS: requireEngine('KAFKA_BROKERS'), KAFKA_TOPIC_PREFIX: `${label}${id}` }
      : { ...common, PROFILE: '', EVENT_STORE: 'pglite', READ_STORE: 'memory', PG_URL: '', PG_SCHEMA: '', MONGO_URL: '', REDIS_URL: '', KAFKA_BROKERS: '', ESDB_URL: '' };
  let server: ReturnType<typeof spawnServer> | null = null;
  let clockOffsetMs = 0;
  const self = {
    profile,
    url,
    dataDir,
    /** The event store's schema (PGlite: `eventstore`). */
    storeSchema: profile === 'server' ? schema : 'eventstore',
    async start(): Promise<void> {
      server = spawnServer({ ...env, NODE_ENV: 'test', TEST_CLOCK_OFFSET_MS: String(clockOffsetMs) }, port);
      await waitUp(url, server);
    },
    /** Moves the running server's clock `ms` forward; resolves once the server has moved it. */
    async advanceClock(ms: number): Promise<void> {
      if (!server) throw new Error('advanceClock: the server is not running');
      await advanceClockOf(server, ms);
      clockOffsetMs += ms;
    },
    async kill(): Promise<void> {
      const s = server;
      server = null;
      if (!s || s.proc.exitCode !== null) return;
      const exited = new Promise((r) => s.proc.once('exit', r));
      s.proc.kill('SIGKILL');
      await exited;
    },
    output: (): string => server?.output() ?? '',
    apiKey: (): string => JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')).apiKey as string,
    async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
      if (profile === 'server') {
        const pg = new Client({ connectionString: env.PG_URL });
        await pg.connect();
        try {
          return (await pg.query(sql, params)).rows as T[];
        } finally {
          await pg.end();
        }
      }
      await self.kill();
      const es = await SqlEventStore.pglite(path.join(dataDir, 'eventstore'), { schema: 'eventstore' });
      try {
        return await es.sqlClient.query<T & Record<string, unknown>>(sql, params);
      } finally {
        await es.close();
      }
    },
    /**
     * Puts the Idempotency-Key records of `keys` in the state a kill between the write's commit and
     * its answer leaves them (committed, no answer), and drops their answers cached in Redis (server
     * profile). Answers the keys it reset and how many cached answers it dropped.
     */
    async loseAnswers(keys: string[]): Promise<{ keys: string[]; uncached: number }> {
      const reset = await self.query<{ key: string; scope: string }>(
        `UPDATE "${self.storeSchema}".idempotency SET state = 'committed', status = NULL, body = NULL, content_type = NULL
         WHERE key = ANY($1::text[]) AND state = 'completed' RETURNING key, scope`,
        [keys],
      );
      let uncached = 0;
      if (profile === 'server' && reset.length) {
        const redis = new Redis(requireEngine('REDIS_URL'));
        try {
          uncached = await redis.del(...reset.map((r) => `idem-answer:${r.scope}:${createHash('sha256').update(r.key).digest('hex')}`));
        } finally {
          redis.disconnect();
        }
      }
      return { keys: reset.map((r) => r.key).sort(), uncached };
    },
    async cleanup(): Promise<void> {
      await self.kill();
      if (profile === 'server') {
        const pg = new Client({ connectionString: env.PG_URL });
        await pg.connect();
        await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pg.end();
        const mongo = await MongoClient.connect(env.MONGO_URL);
        await mongo.db(schema).dropDatabase();
        await mongo.close();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return self;
}
