import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { EventStore, NewEvent } from '../libs/eventstore/src/event-store.port';
import type { CheckpointStore } from '../libs/subscriptions/src/checkpoint-store';
import { SubscriptionRunner } from '../libs/subscriptions/src/subscription-runner';
import { KafkaRelay } from '../libs/messaging/src/kafka-relay';

export interface BenchRelayOptions {
  store: EventStore;
  brokers: string[];
  /** Events to append then relay. */
  n: number;
  /** Events per append (default 100). */
  appendSize?: number;
  /** Relay batch size (events per sendBatch), default the relay's (2000). */
  batchSize?: number;
  /** Topic prefix; default a unique `bench<random>` so runs never mix. */
  topicPrefix?: string;
  /** Delete the bench topics afterwards (default true). */
  deleteTopics?: boolean;
}

export interface BenchRelayResult {
  eventsPerSec: number;
  events: number;
  ms: number;
  appendMs: number;
}

class MemoryCheckpoints implements CheckpointStore {
  private readonly map = new Map<string, number>();
  constructor(private readonly initial: number) {}
  async load(name: string): Promise<number> {
    return this.map.get(name) ?? this.initial;
  }
  async save(name: string, position: number): Promise<void> {
    this.map.set(name, position);
  }
}

/**
 * Appends `n` events (in appends of 100 across 50 streams of several contexts), then times a fresh
 * Kafka relay draining them from the position before the appends to the head (producer already
 * connected and topics created, so the figure is the steady publish rate: read, map, send, ack, checkpoint).
 */
export async function benchRelay(options: BenchRelayOptions): Promise<BenchRelayResult> {
  const { store, brokers, n } = options;
  const appendSize = options.appendSize ?? 100;
  const topicPrefix = options.topicPrefix ?? `bench${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  // Stream category and the context (event type prefix, so topic) of its events.
  const categories = [['instance', 'compute'], ['job', 'jobs'], ['wallet', 'billing'], ['project', 'identity'], ['ticket', 'support'], ['file', 'files'], ['model', 'ai'], ['catalog', 'catalog']] as const;
  const streams = Array.from({ length: 50 }, (_, i) => ({ id: `${categories[i % categories.length][0]}-${randomUUID()}`, context: categories[i % categories.length][1] }));

  const startPosition = await store.headPosition();
  const appendStarted = performance.now();
  const appends: Array<() => Promise<unknown>> = [];
  for (let done = 0, i = 0; done < n; i++) {
    const size = Math.min(appendSize, n - done);
    const { id: streamId, context } = streams[i % streams.length];
    const events: NewEvent[] = Array.from({ length: size }, (_, k) => ({
      id: randomUUID(),
      type: `${context}.ResourceUpdated.v1`,
      data: {
        resourceId: streamId,
        seq: done + k,
        name: `resource-${done + k}`,
        region: 'eu-central-1',
        flavor: 'gp.medium',
        labels: { env: 'bench', team: 'platform' },
      },
      metadata: { projectId: 'bench-project', correlationId: randomUUID(), schemaVersion: 1 },
    }));
    appends.push(() => store.append(streamId, events, { expectedRevision: 'any' }));
    done += size;
  }
  // A few appends in flight at once (the store group-commits them).
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < appends.length) await appends[next++]();
    }),
  );
  const appendMs = performance.now() - appendStarted;
  const head = await store.headPosition();

  const relay = new KafkaRelay({ brokers, clientId: 'bench-relay', topicPrefix, contexts: categories.map(([, c]) => c), batchSize: options.batchSize });
  await relay.start();
  const runner = new SubscriptionRunner(store, new MemoryCheckpoints(startPosition), relay);
  let ms = 0;
  try {
    const started = performance.now();
    await runner.start();
    const ok = await runner.waitFor(head, 600_000);
    ms = performance.now() - started;
    if (!ok) throw new Error(`relay did not reach position ${head} (at ${runner.position})`);
  } finally {
    await runner.stop();
    await relay.stop();
  }
  const events = relay.published;

  if (options.deleteTopics ?? true) {
    const admin = new Kafka({ clientId: 'bench-relay-admin', brokers, logLevel: logLevel.NOTHING }).admin();
    try {
      await admin.connect();
      await admin.deleteTopics({ topics: relay.topics });
    } catch {
      // best effort
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
  return { eventsPerSec: Math.round((events / ms) * 1000), events, ms: Math.round(ms), appendMs: Math.round(appendMs) };
}
