import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { NewEvent, RecordedEvent } from '../../eventstore/src/event-store.port';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import { SubscriptionRunner } from '../../subscriptions/src/subscription-runner';
import type { CloudEvent } from '../src/cloudevents';
import { topicOf } from '../src/cloudevents';
import { KafkaRelay } from '../src/kafka-relay';
import type { Consumed } from './helpers';
import { assertEnginesUp, consumeUntil, deleteTopics, dropSchema, KAFKA_BROKERS, PG_URL, PgCheckpointStore, quietLogger, uid } from './helpers';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(__dirname, '../../..');
/** The engines script; overridable so the suite can drive a patched copy or another broker manager. */
const ENGINES_SH = process.env.ENGINES_SH ?? 'scripts/engines.sh';

const schema = `relay_${uid(12)}`;
let store: SqlEventStore;
let checkpoints: PgCheckpointStore;
const topicsWritten: string[] = [];

beforeAll(async () => {
  await assertEnginesUp();
  store = await SqlEventStore.postgres(PG_URL, { schema, poolSize: 6, pollIntervalMs: 100 });
  checkpoints = await PgCheckpointStore.open(PG_URL, schema);
});

afterAll(async () => {
  await deleteTopics(topicsWritten);
  await store?.close();
  await checkpoints?.close();
  await dropSchema(schema).catch(() => undefined);
});

const STREAM_CATEGORIES = ['instance', 'job', 'wallet', 'project', 'apikey', 'ticket', 'file', 'model', 'catalog', 'mystery'];

function newEvent(streamId: string, i: number): NewEvent {
  return {
    id: randomUUID(),
    type: `test.Thing${i % 3}.v1`,
    data: { streamId, i, note: `event ${i}`, apiKey: 'MUST-NOT-LEAK' },
    metadata: { projectId: 'prj_test', correlationId: `corr-${i}`, schemaVersion: 1 },
  };
}

function parse(m: Consumed): CloudEvent {
  return JSON.parse(m.value) as CloudEvent;
}

async function engines(...args: string[]): Promise<void> {
  await run('bash', [ENGINES_SH, ...args], { cwd: REPO_ROOT, timeout: 120_000, env: process.env });
}

describe('KafkaRelay against a real broker', () => {
  it('relays every event as CloudEvents, keyed by stream id, in per-stream order, and checkpoints the head', async () => {
    const prefix = `t${uid(8)}`;
    const relay = new KafkaRelay({ brokers: KAFKA_BROKERS, clientId: 'relay-test-a', topicPrefix: prefix, name: `relay:a:${prefix}`, batchSize: 64, logger: quietLogger });
    topicsWritten.push(...relay.topics);
    await relay.start();
    const runner = new SubscriptionRunner(store, checkpoints, relay);
    const streams = STREAM_CATEGORIES.map((c) => `${c}-${randomUUID()}`);
    const from = await store.headPosition();

    const appendRounds = async (rounds: number, offset: number) => {
      for (let r = 0; r < rounds; r++) {
        await Promise.all(
          streams.map((s, k) => store.append(s, [newEvent(s, (offset + r) * 10 + k)], { expectedRevision: 'any' })),
        );
      }
    };
    await checkpoints.save(relay.name, from);
    await appendRounds(15, 0); // catch-up part
    await runner.start();
    await appendRounds(15, 15); // live part
    const head = await store.headPosition();
    expect(head - from).toBe(300);
    try {
      expect(await runner.waitFor(head, 60_000)).toBe(true);
    } finally {
      await runner.stop();
      await relay.stop();
    }
    expect(await checkpoints.load(relay.name)).toBe(head);
    expect(relay.published).toBe(300);
    expect(relay.lastPublishLatencyMs).toBeGreaterThan(0);

    const appended = (await store.readAll({ fromPosition: from, maxCount: 10_000 })) as RecordedEvent[];
    expect(appended).toHaveLength(300);
    const { messages, complete } = await consumeUntil(relay.topics, (all) => all.length >= 300, 60_000);
    expect(complete).toBe(true);
    expect(messages).toHaveLength(300);

    const byId = new Map(messages.map((m) => [parse(m).id, m]));
    expect(byId.size).toBe(300);
    for (const e of appended) {
      const m = byId.get(e.id);
      expect(m).toBeDefined();
      const ce = parse(m!);
      expect(ce.specversion).toBe('1.0');
      expect(ce.type).toBe(e.type);
      expect(ce.subject).toBe(e.streamId);
      expect(ce.position).toBe(e.position);
      expect(ce.streamrevision).toBe(e.revision);
      expect(ce.source).toBe('/v1/projects/prj_test');
      expect(ce.time).toBe(e.recordedAt);
      expect(ce.data).toEqual({ streamId: e.streamId, i: e.data.i, note: e.data.note });
      expect(m!.value).not.toContain('MUST-NOT-LEAK');
      expect(m!.key).toBe(e.streamId);
      expect(m!.topic).toBe(topicOf(e, prefix));
      expect(m!.headers.ce_id).toBe(e.id);
      expect(m!.headers.ce_type).toBe(e.type);
      expect(m!.headers['content-type']).toBe('application/cloudevents+json');
    }
    // One topic per distinct context of the streams (e.g. project and apikey are both identity).
    const expectedTopics = new Set(streams.map((s) => topicOf({ streamId: s }, prefix)));
    expect(new Set(messages.map((m) => m.topic))).toEqual(expectedTopics);
    expect(expectedTopics.size).toBeGreaterThanOrEqual(5);
    expect(messages.some((m) => m.topic === `${prefix}.platform.events.v1`)).toBe(true);

    // Per key, the positions arrive strictly increasing.
    const lastByKey = new Map<string, number>();
    for (const m of messages) {
      const p = parse(m).position;
      const prev = lastByKey.get(m.key) ?? 0;
      expect(p).toBeGreaterThan(prev);
      lastByKey.set(m.key, p);
    }
    expect(lastByKey.size).toBe(10);
  });

  it('rejects while the broker is down, then delivers everything once it is back (at-least-once)', async () => {
    const prefix = `t${uid(8)}`;
    const relay = new KafkaRelay({ brokers: KAFKA_BROKERS, clientId: 'relay-test-b', topicPrefix: prefix, name: `relay:b:${prefix}`, batchSize: 50, logger: quietLogger });
    topicsWritten.push(...relay.topics);
    await relay.start();
    const from = await store.headPosition();
    await checkpoints.save(relay.name, from);
    const errors: unknown[] = [];
    // Time every failed publish: with the broker down handle() must reject within seconds, not hang.
    const failedAfterMs: number[] = [];
    const handle = relay.handle.bind(relay);
    relay.handle = async (events) => {
      const t = Date.now();
      try {
        await handle(events);
      } catch (err) {
        failedAfterMs.push(Date.now() - t);
        throw err;
      }
    };
    const runner = new SubscriptionRunner(store, checkpoints, relay, (_n, err) => errors.push(err));
    const streams = ['instance', 'job', 'wallet', 'ticket', 'mystery'].map((c) => `${c}-${randomUUID()}`);
    const ids: string[] = [];

    let appending = true;
    let i = 0;
    const appender = (async () => {
      while (appending) {
        const s = streams[i % streams.length];
        const e = newEvent(s, i++);
        await store.append(s, [e], { expectedRevision: 'any' });
        ids.push(e.id);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    let brokerStopped = false;
    try {
      await runner.start();
      await new Promise((r) => setTimeout(r, 2000));
      const beforeStop = runner.position;
      expect(beforeStop).toBeGreaterThan(from); // relaying live before the outage

      await engines('stop', 'kafka');
      brokerStopped = true;
      // Let any batch that was acknowledged before the stop settle, then the checkpoint must freeze.
      await new Promise((r) => setTimeout(r, 1500));
      const frozen = await checkpoints.load(relay.name);
      const failuresAtStop = relay.failures;
      await new Promise((r) => setTimeout(r, 8000));
      expect(await checkpoints.load(relay.name)).toBe(frozen);
      expect(runner.position).toBe(frozen);
      expect(await store.headPosition()).toBeGreaterThan(frozen); // events waiting while the broker is down
      expect(relay.failures).toBeGreaterThan(failuresAtStop); // handle() rejected (did not hang)
      expect(errors.length).toBeGreaterThan(0);
      expect(Math.max(...failedAfterMs)).toBeLessThan(10_000);
      if (process.env.RELAY_TEST_DEBUG) {
        // eslint-disable-next-line no-console
        console.log({ frozen, failedAfterMs, failures: relay.failures, errors: errors.length, producers: relay.producersCreated, lastError: relay.lastError });
      }

      await engines('start', 'kafka');
      brokerStopped = false;
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      appending = false;
      await appender;
      if (brokerStopped) await engines('start', 'kafka').catch(() => undefined);
    }

    const head = await store.headPosition();
    try {
      expect(await runner.waitFor(head, 90_000)).toBe(true);
    } finally {
      await runner.stop();
      await relay.stop();
    }
    expect(await checkpoints.load(relay.name)).toBe(head);
    // Every save ever made is monotonic and within what was appended.
    const saves = checkpoints.saves.filter((p) => p > from);
    for (let k = 1; k < saves.length; k++) expect(saves[k]).toBeGreaterThan(saves[k - 1]);

    const want = new Set(ids);
    expect(want.size).toBe(head - from);
    const { messages, complete } = await consumeUntil(
      relay.topics,
      (all) => {
        const seen = new Set(all.map((m) => m.headers.ce_id));
        for (const id of want) if (!seen.has(id)) return false;
        return true;
      },
      60_000,
    );
    const seen = new Set(messages.map((m) => parse(m).id));
    const missing = [...want].filter((id) => !seen.has(id));
    expect(missing).toEqual([]);
    expect(complete).toBe(true);
    // Every event at or below the final checkpoint (the head) is in the topics, so no checkpoint ever
    // passed an event the broker had not stored: events below a checkpoint are never re-sent.
    const positions = new Set(messages.map((m) => parse(m).position));
    for (let p = from + 1; p <= head; p++) expect(positions.has(p)).toBe(true);
    // Duplicates are allowed, but per key the first delivery of each position is in order.
    const firstSeen = new Map<string, number>();
    const order = new Map<string, number[]>();
    for (const m of messages) {
      const ce = parse(m);
      if (firstSeen.has(ce.id)) continue;
      firstSeen.set(ce.id, ce.position);
      order.set(m.key, [...(order.get(m.key) ?? []), ce.position]);
    }
    for (const list of order.values()) expect([...list].sort((a, b) => a - b)).toEqual(list);
  }, 180_000);
});
