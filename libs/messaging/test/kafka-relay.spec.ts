import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { NewEvent, RecordedEvent } from '../../eventstore/src/event-store.port';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import { SubscriptionRunner } from '../../subscriptions/src/subscription-runner';
import type { CloudEvent } from '../src/cloudevents';
import { topicOf } from '../src/cloudevents';
import { KafkaRelay } from '../src/kafka-relay';
import { KafkaCutProxy } from './kafka-proxy';
import { eventually } from '../../../test/support/wait';
import type { Consumed } from './helpers';
import { assertEnginesUp, consumeUntil, deleteTopics, dropSchema, KAFKA_BROKERS, PG_URL, PgCheckpointStore, quietLogger, uid } from './helpers';

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

/** Stream categories and the context (type prefix, so topic) of their events; `apikey` shares identity's topic with `project`. */
const STREAM_CONTEXTS: Record<string, string> = { instance: 'compute', job: 'jobs', wallet: 'billing', project: 'identity', apikey: 'identity', ticket: 'support', file: 'files', model: 'ai', catalog: 'catalog', mystery: 'mystery' };
const STREAM_CATEGORIES = Object.keys(STREAM_CONTEXTS);
/** The contexts the relay is told of: `mystery` is not one, so its topic is auto-created. */
const CONTEXTS = Object.values(STREAM_CONTEXTS).filter((c) => c !== 'mystery');
/** Every topic the events below land on, the unlisted context's included. */
const topicsOf = (prefix: string) => [...new Set(Object.values(STREAM_CONTEXTS))].map((c) => `${prefix}.${c}.events.v1`);

function newEvent(streamId: string, i: number): NewEvent {
  return {
    id: randomUUID(),
    type: `${STREAM_CONTEXTS[streamId.slice(0, streamId.indexOf('-'))]}.Thing${i % 3}.v1`,
    data: { streamId, i, note: `event ${i}`, apiKey: 'MUST-NOT-LEAK' },
    metadata: { projectId: 'prj_test', correlationId: `corr-${i}`, schemaVersion: 1 },
  };
}

function parse(m: Consumed): CloudEvent {
  return JSON.parse(m.value) as CloudEvent;
}

describe('KafkaRelay against a real broker', () => {
  it('relays every event as CloudEvents, keyed by stream id, in per-stream order, and checkpoints the head', async () => {
    const prefix = `t${uid(8)}`;
    const relay = new KafkaRelay({ brokers: KAFKA_BROKERS, clientId: 'relay-test-a', topicPrefix: prefix, contexts: CONTEXTS, name: `relay:a:${prefix}`, batchSize: 64, logger: quietLogger });
    topicsWritten.push(...topicsOf(prefix));
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
    // The service's own bookkeeping is in the log but never on a topic.
    await store.append(`idempotency-${randomUUID()}`, [{ id: randomUUID(), type: 'idempotency.KeyReserved.v1', data: { leaseUntil: 1 }, metadata: { schemaVersion: 1 } }], { expectedRevision: 'any' });
    await runner.start();
    await appendRounds(15, 15); // live part
    const head = await store.headPosition();
    expect(head - from).toBe(301);
    try {
      expect(await runner.waitFor(head, 60_000)).toBe(true);
    } finally {
      await runner.stop();
      await relay.stop();
    }
    expect(await checkpoints.load(relay.name)).toBe(head);
    expect(relay.published).toBe(301); // handled, the one internal event skipped
    expect(relay.lastPublishLatencyMs).toBeGreaterThan(0);

    const all = (await store.readAll({ fromPosition: from, maxCount: 10_000 })) as RecordedEvent[];
    expect(all).toHaveLength(301);
    const appended = all.filter((e) => !e.type.startsWith('idempotency.'));
    expect(appended).toHaveLength(300);
    const { messages, complete } = await consumeUntil(topicsOf(prefix), (all) => all.length >= 300, 60_000);
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
    // One topic per distinct type prefix (project and apikey are both identity), an unlisted one's too.
    expect(new Set(messages.map((m) => m.topic))).toEqual(new Set(Object.values(STREAM_CONTEXTS).map((c) => `${prefix}.${c}.events.v1`)));
    expect(relay.topics).toHaveLength(8);

    // Per key, the positions arrive strictly increasing.
    const lastByKey = new Map<string, number>();
    for (const m of messages) {
      const p = parse(m).position;
      const prev = lastByKey.get(m.key) ?? 0;
      expect(p).toBeGreaterThan(prev);
      lastByKey.set(m.key, p);
    }
    expect(lastByKey.size).toBe(10);
    // Published, the internal event would have auto-created its topic.
    const admin = new Kafka({ clientId: 'relay-test-admin', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      expect((await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`)).sort()).toEqual(topicsOf(prefix).sort());
    } finally {
      await admin.disconnect();
    }
  });

  it('rejects while the broker is unreachable, keeps its checkpoint, then delivers everything once it is back, each event once', async () => {
    // The outage is a proxy between this relay and the broker, cut and restored by this test alone:
    // the broker itself, shared with suites running in parallel, stays up.
    const proxy = await KafkaCutProxy.start(KAFKA_BROKERS);
    const prefix = `t${uid(8)}`;
    const relay = new KafkaRelay({ brokers: proxy.brokers, clientId: 'relay-test-b', topicPrefix: prefix, contexts: CONTEXTS, name: `relay:b:${prefix}`, batchSize: 50, logger: quietLogger });
    topicsWritten.push(...topicsOf(prefix));
    const from = await store.headPosition();
    await checkpoints.save(relay.name, from);
    const errors: unknown[] = [];
    const runner = new SubscriptionRunner(store, checkpoints, relay, (_n, err) => errors.push(err));
    const streams = ['instance', 'job', 'wallet', 'ticket', 'mystery'].map((c) => `${c}-${randomUUID()}`);
    const ids: string[] = [];
    let i = 0;
    const appendSome = async (n: number) => {
      for (let k = 0; k < n; k++) {
        const s = streams[i % streams.length];
        const e = newEvent(s, i++);
        await store.append(s, [e], { expectedRevision: 'any' });
        ids.push(e.id);
      }
      return store.headPosition();
    };

    let head: number;
    try {
      await relay.start();
      await runner.start();
      // Relaying live before the outage: everything so far acknowledged and checkpointed.
      const beforeCut = await appendSome(40);
      expect(await runner.waitFor(beforeCut, 60_000)).toBe(true);
      expect(await eventually(() => checkpoints.load(relay.name), (p) => p === beforeCut)).toBe(beforeCut);
      expect(proxy.accepted).toBeGreaterThan(0); // the relay's traffic goes through the proxy

      proxy.cut();
      const failuresAtCut = relay.failures;
      const duringCut = await appendSome(40);
      // handle() rejects (it does not hang) and the runner hands the same batch again, repeatedly.
      expect(await eventually(async () => relay.failures, (f) => f >= failuresAtCut + 3, 60_000)).toBeGreaterThanOrEqual(failuresAtCut + 3);
      expect(errors.length).toBeGreaterThanOrEqual(3);
      // Nothing the broker did not acknowledge was checkpointed or skipped.
      expect(runner.position).toBe(beforeCut);
      expect(await checkpoints.load(relay.name)).toBe(beforeCut);
      expect(duringCut).toBeGreaterThan(beforeCut);
      if (process.env.RELAY_TEST_DEBUG) {
        // eslint-disable-next-line no-console
        console.log({ beforeCut, failures: relay.failures, errors: errors.length, producers: relay.producersCreated, lastError: relay.lastError });
      }

      proxy.restore();
      head = await appendSome(20);
      expect(await runner.waitFor(head, 90_000)).toBe(true);
    } finally {
      await runner.stop();
      await relay.stop();
      await proxy.close();
    }
    expect(await checkpoints.load(relay.name)).toBe(head);
    // Every save ever made is monotonic and within what was appended.
    const saves = checkpoints.saves.filter((p) => p > from);
    for (let k = 1; k < saves.length; k++) expect(saves[k]).toBeGreaterThan(saves[k - 1]);

    const want = new Set(ids);
    expect(want.size).toBe(head - from);
    const { messages, complete } = await consumeUntil(
      topicsOf(prefix),
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
    // Each event once (a send that failed after part of it landed is not repeated: the relay reads the
    // partitions' tails again after every failure), and per key in store order.
    expect(messages.length).toBe(want.size);
    const order = new Map<string, number[]>();
    for (const m of messages) order.set(m.key, [...(order.get(m.key) ?? []), parse(m).position]);
    for (const list of order.values()) expect([...list].sort((a, b) => a - b)).toEqual(list);
  }, 180_000);

  it('a relay killed between an acknowledged send and its checkpoint: the next one writes none of it twice', async () => {
    const prefix = `t${uid(8)}`;
    const name = `relay:c:${prefix}`;
    topicsWritten.push(...topicsOf(prefix));
    const from = await store.headPosition();
    await checkpoints.save(name, from);
    const streams = STREAM_CATEGORIES.map((c) => `${c}-${randomUUID()}`);
    let i = 0;
    const appendRound = () => Promise.all(streams.map((s) => store.append(s, [newEvent(s, i++)], { expectedRevision: 'any' })));
    for (let r = 0; r < 6; r++) await appendRound();
    const stored = (await store.readAll({ fromPosition: from, maxCount: 10_000 })) as RecordedEvent[];
    expect(stored).toHaveLength(60);

    // The first relay sends two batches and the broker acknowledges them, but the process dies before
    // its checkpoint is saved (the runner saves it every 250 ms): nothing of it reached the checkpoint.
    const killed = new KafkaRelay({ brokers: KAFKA_BROKERS, clientId: 'relay-test-c1', topicPrefix: prefix, contexts: CONTEXTS, name, logger: quietLogger });
    try {
      await killed.handle(stored.slice(0, 25));
      await killed.handle(stored.slice(25, 40));
      expect(killed.published).toBe(40);
    } finally {
      await killed.stop(); // its connections only; the checkpoint is where the crash left it
    }
    expect(await checkpoints.load(name)).toBe(from);

    // More is appended while no relay runs, then a new relay starts from the stored checkpoint.
    for (let r = 0; r < 2; r++) await appendRound();
    const head = await store.headPosition();
    const relay = new KafkaRelay({ brokers: KAFKA_BROKERS, clientId: 'relay-test-c2', topicPrefix: prefix, contexts: CONTEXTS, name, batchSize: 32, logger: quietLogger });
    const runner = new SubscriptionRunner(store, checkpoints, relay);
    try {
      await relay.start();
      await runner.start();
      expect(await runner.waitFor(head, 60_000)).toBe(true);
    } finally {
      await runner.stop();
      await relay.stop();
    }

    const all = (await store.readAll({ fromPosition: from, maxCount: 10_000 })) as RecordedEvent[];
    expect(all).toHaveLength(80);
    const { messages } = await consumeUntil(topicsOf(prefix), (got) => new Set(got.map((m) => m.headers.ce_id)).size >= 80, 60_000);
    // Every event on its topic exactly once, and per key (stream) in store order.
    expect(messages.map((m) => m.headers.ce_id).sort()).toEqual(all.map((e) => e.id).sort());
    const byKey = new Map<string, number[]>();
    for (const m of messages) byKey.set(m.key, [...(byKey.get(m.key) ?? []), parse(m).position]);
    expect(byKey.size).toBe(streams.length);
    for (const s of streams) expect(byKey.get(s)).toEqual(all.filter((e) => e.streamId === s).map((e) => e.position));
    expect(relay.tailReads).toBe(1); // once at start, not per batch
    expect(relay.skippedAlreadyWritten).toBe(40);
  }, 180_000);
});
