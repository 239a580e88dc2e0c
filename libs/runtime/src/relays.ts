import type pino from 'pino';
import type { AppConfig } from '../../config/src/config';
import type { EventStore } from '../../eventstore/src/event-store.port';
import { KafkaRelay } from '../../messaging/src/kafka-relay';
import type { CheckpointStore } from '../../subscriptions/src/checkpoint-store';
import { SubscriptionRunner } from '../../subscriptions/src/subscription-runner';

/** Downstream delivery: the Kafka relay's checkpointed subscription, when the profile has Kafka. */
export class Relays {
  readonly runners: SubscriptionRunner[] = [];
  private readonly kafka: KafkaRelay | null = null;
  private queueCheck: { at: number; ok: boolean } | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly logger: pino.Logger,
    events: EventStore,
    checkpoints: CheckpointStore,
    /** The registered contexts (their modules' names): one topic each. */
    contexts: readonly string[],
  ) {
    if (!config.kafka) return;
    this.kafka = new KafkaRelay({ brokers: config.kafka.brokers, clientId: 'cloud-api', topicPrefix: config.kafka.topicPrefix, contexts, logger });
    this.runners.push(new SubscriptionRunner(events, checkpoints, this.kafka, (name, err) => logger.warn({ err: String(err), subscription: name }, 'relay batch failed; retrying')));
  }

  async start(): Promise<void> {
    if (this.kafka) {
      try {
        await this.kafka.start();
      } catch (err) {
        this.logger.warn({ err: String(err) }, 'Kafka is not reachable yet; the relay retries in the background');
      }
    }
    for (const r of this.runners) await r.start();
  }

  async stop(): Promise<void> {
    for (const r of this.runners) await r.stop();
    await this.kafka?.stop().catch(() => undefined);
  }

  /** Readiness of the downstream bus: null when this profile runs without Kafka. */
  async checkQueue(): Promise<boolean | null> {
    if (!this.config.kafka) return null;
    const now = Date.now();
    if (this.queueCheck && now - this.queueCheck.at < 2000) return this.queueCheck.ok;
    const { Kafka, logLevel } = await import('kafkajs');
    // Generous enough for a broker on a loaded machine: a false `down` takes the instance out of rotation.
    const admin = new Kafka({ clientId: 'cloud-api-health', brokers: this.config.kafka.brokers, connectionTimeout: 2500, requestTimeout: 3000, retry: { retries: 1, initialRetryTime: 200 }, logLevel: logLevel.NOTHING }).admin();
    let ok = false;
    try {
      await admin.connect();
      await admin.describeCluster();
      ok = true;
    } catch {
      ok = false;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    this.queueCheck = { at: now, ok };
    return ok;
  }
}
