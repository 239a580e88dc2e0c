import { randomUUID } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import type { Admin, ICustomPartitioner, Kafka, PartitionMetadata } from 'kafkajs';

/** What a topic already holds: per partition, the store position of its last message (-1: empty). */
export interface TopicTail {
  positions: number[];
}

/**
 * The positions the relay's topics already hold, read from the last message of each partition.
 * The relay writes a partition in store order (one sendBatch at a time, idempotent producer with one
 * request in flight), so a partition holds exactly the events of its keys up to its last message's
 * position: an event whose position is at most that is already there (a re-send after a crash or a
 * failed send whose outcome is unknown), a later one is not.
 */
export class TopicTails {
  /** The highest position over every partition: an event past it is on no partition yet. */
  readonly max: number;
  private readonly partitionOf = cachedKeyPartitioner();

  constructor(private readonly tails: ReadonlyMap<string, TopicTail>) {
    let max = -1;
    for (const t of tails.values()) for (const p of t.positions) if (p > max) max = p;
    this.max = max;
  }

  /** Whether the partition of `key` on `topic` already holds the event at `position`. */
  holds(topic: string, key: string, position: number): boolean {
    const tail = this.tails.get(topic);
    if (!tail || tail.positions.length === 0) return false;
    const partitionMetadata = tail.positions.map((_, partitionId) => ({ partitionId, leader: 0 }) as PartitionMetadata);
    const partition = this.partitionOf({ topic, partitionMetadata, message: { key, value: null } });
    return position <= (tail.positions[partition] ?? -1);
  }

  /**
   * Reads the last message of every non-empty partition of the relay's topics: `topics` and any other
   * `<topicPrefix>.<context>.events.v1` (a context's topic auto-created on its first event): an admin
   * call for the offsets, then a throwaway consumer (its own group, nothing committed) seeking each
   * partition to its last offset. Called when the relay starts and after a failed send, never per batch.
   */
  static async read(kafka: Kafka, topics: readonly string[], topicPrefix: string, groupPrefix: string, timeoutMs: number): Promise<TopicTails> {
    const tails = new Map<string, TopicTail>();
    const wanted = new Map<string, bigint>(); // `${topic}:${partition}` → offset of its last message
    const admin = kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const ours = [...existing].filter((t) => topics.includes(t) || (t.startsWith(`${topicPrefix}.`) && t.endsWith('.events.v1') && t.split('.').length === topicPrefix.split('.').length + 3));
      for (const topic of ours) {
        const offsets = await offsetsOf(admin, topic, timeoutMs);
        const positions = new Array<number>(offsets.length).fill(-1);
        tails.set(topic, { positions });
        for (const o of offsets) if (BigInt(o.high) > BigInt(o.low)) wanted.set(`${topic}:${o.partition}`, BigInt(o.high) - 1n);
      }
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    if (wanted.size === 0) return new TopicTails(tails);

    const groupId = `${groupPrefix}-tail-${randomUUID()}`;
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      let done: () => void = () => undefined;
      const all = new Promise<void>((resolve) => (done = resolve));
      const subscribed = [...new Set([...wanted.keys()].map((k) => k.slice(0, k.lastIndexOf(':'))))];
      await consumer.subscribe({ topics: subscribed, fromBeginning: false });
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ topic, partition, message }) => {
          const k = `${topic}:${partition}`;
          const last = wanted.get(k);
          if (last === undefined || BigInt(message.offset) < last) return;
          const position = Number((JSON.parse(message.value?.toString() ?? '{}') as { position?: unknown }).position);
          if (Number.isFinite(position)) tails.get(topic)!.positions[partition] = position;
          wanted.delete(k);
          if (wanted.size === 0) done();
        },
      });
      for (const k of wanted.keys()) {
        const i = k.lastIndexOf(':');
        consumer.seek({ topic: k.slice(0, i), partition: Number(k.slice(i + 1)), offset: String(wanted.get(k)) });
      }
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the last messages of ${[...wanted.keys()].join(', ')} were not read within ${timeoutMs} ms`)), timeoutMs)));
      await Promise.race([all, late]).finally(() => clearTimeout(timer));
    } finally {
      await consumer.disconnect().catch(() => undefined);
    }
    const admin2 = kafka.admin();
    await admin2
      .connect()
      .then(() => admin2.deleteGroups([groupId]))
      .catch(() => undefined)
      .finally(() => admin2.disconnect().catch(() => undefined));
    return new TopicTails(tails);
  }
}

/**
 * A partition's offsets. A topic created a moment ago answers NOT_LEADER until its leader is elected,
 * and kafkajs' admin gives up on that at once: retried (metadata refreshed) while the error is retriable.
 */
async function offsetsOf(admin: Admin, topic: string, timeoutMs: number): ReturnType<Admin['fetchTopicOffsets']> {
  const until = Date.now() + timeoutMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await admin.fetchTopicOffsets(topic);
    } catch (err) {
      if (!(err as { retriable?: boolean }).retriable || Date.now() + delay > until) throw err;
      await new Promise((r) => setTimeout(r, delay));
      await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
    }
  }
}

/**
 * kafkajs' DefaultPartitioner (Java-compatible murmur2 of the key, so other clients agree on the
 * partition of a stream), memoized per (partition count, key): murmur2 in JS is a visible share of
 * the relay's CPU and stream ids repeat a lot.
 */
export const cachedKeyPartitioner: ICustomPartitioner = () => {
  const inner = Partitioners.DefaultPartitioner();
  const cache = new Map<string, number>();
  return (args) => {
    const { message, partitionMetadata } = args;
    if ((message.partition !== undefined && message.partition !== null) || typeof message.key !== 'string') return inner(args);
    const k = `${partitionMetadata.length}:${message.key}`;
    let partition = cache.get(k);
    if (partition === undefined) {
      partition = inner(args);
      if (cache.size >= 50_000) cache.clear();
      cache.set(k, partition);
    }
    return partition;
  };
};
