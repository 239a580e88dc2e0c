import type { Kafka } from 'kafkajs';

/**
 * Waits (bounded) until the broker serves `topic`: a consumer that subscribes while the topic is
 * still being created (by the relay) fails with "This server does not host this topic-partition".
 */
export async function waitForTopic(kafka: Kafka, topic: string, timeoutMs = 30000): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const until = Date.now() + timeoutMs;
    for (;;) {
      // Listed, and every partition has a leader (a just-created topic is listed before it is served).
      const ready = (await admin.listTopics()).includes(topic) &&
        (await admin.fetchTopicMetadata({ topics: [topic] }).then((m) => m.topics[0]?.partitions.every((p) => p.leader >= 0) ?? false, () => false));
      if (ready) return;
      if (Date.now() > until) throw new Error(`topic ${topic} was not served within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await admin.disconnect();
  }
}

/** What a context's topic carried: CloudEvent types by subject (stream), and the message keys. */
export interface TopicLog {
  types: Map<string, string[]>;
  keys: Set<string>;
  /** Every message value as received (to check what the topic carried, e.g. that no secret did). */
  values: string[];
}

/**
 * Reads `<prefix>.<context>.events.v1` from the beginning until `done(log)` holds (failing after
 * `timeoutMs`), then returns what it carried.
 */
export async function readTopicUntil(brokers: string[], prefix: string, context: string, done: (log: TopicLog) => boolean, timeoutMs = 30000): Promise<TopicLog> {
  const { Kafka, logLevel } = await import('kafkajs');
  const topic = `${prefix}.${context}.events.v1`;
  const kafka = new Kafka({ clientId: `e2e-${context}`, brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `e2e-${context}-${prefix}` });
  const log: TopicLog = { types: new Map(), keys: new Set(), values: [] };
  await waitForTopic(kafka, topic);
  await consumer.connect();
  try {
    let finished: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (finished = resolve));
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        log.values.push(message.value!.toString());
        const ce = JSON.parse(log.values[log.values.length - 1]) as { subject: string; type: string };
        log.types.set(ce.subject, [...(log.types.get(ce.subject) ?? []), ce.type]);
        if (message.key) log.keys.add(message.key.toString());
        if (done(log)) finished();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${topic}: condition not met within ${timeoutMs} ms; saw ${JSON.stringify([...log.types])}`)), timeoutMs)));
    await Promise.race([reached, timeout]).finally(() => clearTimeout(timer));
    return log;
  } finally {
    await consumer.disconnect();
  }
}
