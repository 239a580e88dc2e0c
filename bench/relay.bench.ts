/**
 * Item 5: Kafka relay throughput (events/s) over ~50,000 events, using libs/messaging's
 * `benchRelay` (a fresh SubscriptionRunner + KafkaRelay draining the appended events).
 * Baselines: kafkajs `sendBatch` of the same CloudEvents messages pre-built (same producer settings
 * and request sizes, no event store), and the read-only `readAll` scan of the same events.
 */
import { Kafka, logLevel, type Message, type TopicMessages } from 'kafkajs';
import { SqlEventStore } from '../libs/eventstore/src/sql/sql-event-store';
import type { RecordedEvent } from '../libs/eventstore/src/event-store.port';
import { benchRelay } from './bench-relay';
import { CLOUDEVENTS_CONTENT_TYPE, serializeCloudEvent, topicOf, allTopics, contextOf } from '../libs/messaging/src/cloudevents';
import { scanAll } from './projection.bench';
import { log, row, shortId, type Engines, type Row } from './lib';

export interface RelayBenchOptions {
  engines: Engines;
  events: number;
  batchSize: number;
}

/** Same grouping and size split as KafkaRelay.chunks (900 kB per produce request). */
function buildRequests(events: RecordedEvent[], prefix: string, batchSize: number, maxBytes = 900_000): TopicMessages[][] {
  const out: TopicMessages[][] = [];
  for (let i = 0; i < events.length; i += batchSize) {
    let current = new Map<string, Message[]>();
    let bytes = 0;
    const flush = () => {
      out.push([...current.entries()].map(([topic, messages]) => ({ topic, messages })));
      current = new Map();
      bytes = 0;
    };
    for (const e of events.slice(i, i + batchSize)) {
      const value = serializeCloudEvent(e);
      const size = Buffer.byteLength(value) + e.streamId.length + e.id.length + e.type.length + 96;
      if (bytes > 0 && bytes + size > maxBytes) flush();
      const topic = topicOf(e, prefix);
      let list = current.get(topic);
      if (!list) current.set(topic, (list = []));
      list.push({ key: e.streamId, value, headers: { ce_id: e.id, ce_type: e.type, 'content-type': CLOUDEVENTS_CONTENT_TYPE } });
      bytes += size;
    }
    if (bytes > 0) flush();
  }
  return out;
}

async function rawSendBatch(brokers: string[], events: RecordedEvent[], batchSize: number): Promise<{ events: number; ms: number }> {
  const prefix = `benchraw${shortId()}`;
  const kafka = new Kafka({ clientId: 'bench-raw', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topics = allTopics(events.map(contextOf), prefix);
  await admin.createTopics({ waitForLeaders: true, topics: topics.map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })) });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  try {
    await producer.connect();
    const requests = buildRequests(events, prefix, batchSize);
    const started = performance.now();
    for (const topicMessages of requests) await producer.sendBatch({ topicMessages, acks: -1, timeout: 5000 });
    return { events: events.length, ms: performance.now() - started };
  } finally {
    await producer.disconnect().catch(() => undefined);
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

export async function benchRelayItem(opts: RelayBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const schema = `bench_relay_${shortId()}`;
  const brokers = opts.engines.kafkaBrokers.split(',').map((b) => b.trim());
  const store = await SqlEventStore.postgres(opts.engines.pgUrl, { schema });
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  try {
    const start = await store.headPosition();
    const relay = await benchRelay({ store, brokers, n: opts.events, batchSize: opts.batchSize });
    const head = await store.headPosition();
    log(`relay: ${relay.events} events in ${(relay.ms / 1000).toFixed(2)} s (${relay.eventsPerSec} ev/s); append took ${(relay.appendMs / 1000).toFixed(1)} s`);

    const scan = await scanAll(store, start, head, opts.batchSize);
    const scanRate = scan.events / (scan.ms / 1000);
    log(`readAll scan of the same events: ${Math.round(scanRate)} ev/s`);

    const events: RecordedEvent[] = [];
    for (let p = start; p < head; ) {
      const batch = await store.readAll({ fromPosition: p, maxCount: 10_000 });
      if (batch.length === 0) break;
      events.push(...batch);
      p = batch[batch.length - 1].position;
    }
    const raw = await rawSendBatch(brokers, events, opts.batchSize);
    const rawRate = raw.events / (raw.ms / 1000);
    log(`kafkajs sendBatch of the pre-built messages: ${Math.round(rawRate)} ev/s`);
    details.relay = { ...relay, scanEventsPerSec: Math.round(scanRate), rawSendBatchEventsPerSec: Math.round(rawRate) };
    rows.push(
      row({ item: '5', metric: `Kafka relay (${Math.round(relay.events / 1000)}k ev)`, unit: 'events/s', value: relay.eventsPerSec, baselineName: 'kafkajs sendBatch, pre-built', baseline: rawRate, target: 10_000, targetKind: 'absolute' }),
      row({ item: '5', metric: 'Kafka relay vs. its source read', unit: 'events/s', value: relay.eventsPerSec, baselineName: 'readAll scan', baseline: scanRate, target: null, targetKind: null }),
    );
  } finally {
    await store.dropSchema().catch(() => undefined);
    await store.close();
  }
  return { rows, details };
}
