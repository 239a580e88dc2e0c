import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { loadConfig } from '../../libs/config/src/config';
import { dataScope } from '../../libs/domain/shared/scope';
import { modeOfKey } from '../../libs/http/src/auth';
import { REDACT_PATHS } from '../../libs/http/src/logging';
import { startServer, type RunningServer } from '../../apps/api/src/server';
import type { PlatformOptions } from '../../libs/runtime/src/platform';
import { requireEngine } from '../engines';
import { client } from './http-client';

export type Profile = 'embedded' | 'server';

export interface TestServer extends RunningServer {
  dataDir: string;
  /**
   * bootstrap.json, plus `scope`: the data scope the bootstrap key reads and writes (a `svc_test_`
   * key: `<projectId>:test`, DECISIONS 21), which events and read models record as `projectId`.
   */
  bootstrap: { projectId: string; apiKey: string; adminKey: string; scope: string };
  /** Everything the server logged, as written (JSON lines). */
  logs: () => string;
  as: (key: string) => ReturnType<typeof client>;
  anonymous: ReturnType<typeof client>;
  /** Stops the server; `keepData` keeps the data dir / schema / database for a restart. */
  stop: (opts?: { keepData?: boolean }) => Promise<void>;
  env: Record<string, string>;
}

/**
 * Starts the real server in-process on an ephemeral port. `embedded` = PGlite + memory read store;
 * `server` = PostgreSQL + MongoDB-compatible (FerretDB) + Redis + Kafka from scripts/engines.sh,
 * each test server with its own schema, database and topic prefix.
 */
export async function startTestServer(profile: Profile, env: Record<string, string> = {}, options: PlatformOptions = {}): Promise<TestServer> {
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-test-'));
  // Suites poll the API; the limits themselves are tested in libs/http.
  const base: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PROFILE: profile,
    RATE_LIMIT_PROJECT_PER_MIN: '1000000',
    RATE_LIMIT_KEY_PER_MIN: '1000000',
    RATE_LIMIT_IP_PER_MIN: '1000000',
  };
  // test/global-setup.mjs: the store starts from an initialized cluster instead of running initdb.
  if (process.env.PGLITE_TEMPLATE) base.PGLITE_TEMPLATE = process.env.PGLITE_TEMPLATE;
  if (profile === 'server') {
    Object.assign(base, {
      PG_URL: requireEngine('PG_URL'),
      PG_SCHEMA: `es_${id}`,
      MONGO_URL: requireEngine('MONGO_URL'),
      MONGO_DB: `rm_${id}`,
      REDIS_URL: requireEngine('REDIS_URL'),
      KAFKA_BROKERS: requireEngine('KAFKA_BROKERS'),
      KAFKA_TOPIC_PREFIX: `t${id}`,
    });
  }
  const merged = { ...base, ...env };
  const config = loadConfig({}, merged);
  let logged = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logged += chunk.toString();
      cb();
    },
  });
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, sink);
  const server = await startServer(config, logger, options);
  const written = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
  const bootstrap = { ...written, scope: dataScope(written.projectId, modeOfKey(written.apiKey)) };
  const stop = async (opts: { keepData?: boolean } = {}) => {
    await server.close();
    if (opts.keepData) return;
    if (profile === 'server') {
      const pg = new Client({ connectionString: merged.PG_URL });
      await pg.connect();
      await pg.query(`DROP SCHEMA IF EXISTS "${merged.PG_SCHEMA}" CASCADE`);
      await pg.end();
      const mongo = await MongoClient.connect(merged.MONGO_URL);
      await mongo.db(merged.MONGO_DB).dropDatabase();
      await mongo.close();
      // Topics under a prefix this server made up are its own: deleting them keeps the shared local
      // broker at a few hundred partitions instead of the thousands a full run leaves behind (each
      // server-profile server makes one topic per context). A prefix a test chose may be shared.
      if (!env.KAFKA_TOPIC_PREFIX) await deleteTopics(merged.KAFKA_BROKERS, `${merged.KAFKA_TOPIC_PREFIX}.`);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return {
    ...server,
    dataDir,
    bootstrap,
    logs: () => logged,
    as: (key: string) => client(server.url, { 'X-Service-API-Key': key }),
    anonymous: client(server.url),
    stop,
    env: merged,
  };
}

async function deleteTopics(brokers: string, prefix: string): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ clientId: 'e2e-cleanup', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics, timeout: 10000 });
  } catch {
    // Clean-up only: a broker a test stopped on purpose keeps the topics until the next `engines.sh up`.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
