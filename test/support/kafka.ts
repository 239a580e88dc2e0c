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
