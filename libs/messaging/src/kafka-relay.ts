import { CompressionTypes, Kafka, logLevel as KafkaLogLevel } from 'kafkajs';
import type { Admin, LogEntry, Message, Producer, TopicMessages } from 'kafkajs';
import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import type { SubscriptionHandler } from '../../subscriptions/src/subscription-runner';
import { allTopics, CLOUDEVENTS_CONTENT_TYPE, isInternal, serializeCloudEvent, topicOf } from './cloudevents';
import { cachedKeyPartitioner, TopicTails } from './topic-tails';

export interface RelayLogger {
  debug?(msg: string, extra?: Record<string, unknown>): void;
  info?(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
}

export interface KafkaRelayOptions {
  brokers: string[];
  clientId: string;
  /** Topics are `<topicPrefix>.<context>.events.v1`, the context being the event type's prefix. Default 'cloud'. */
  topicPrefix?: string;
  /**
   * The registered contexts, whose topics the relay creates up front. An event is published by its
   * type's prefix whether listed or not (its topic is then auto-created); tests keep every prefix registered.
   */
  contexts: readonly string[];
  logger?: RelayLogger;
  /** Subscription name (keys the checkpoint). Default 'relay:kafka'. */
  name?: string;
  /** Events per handled batch (the runner reads this many at a time). Default 2000. */
  batchSize?: number;
  /** Minimum spacing of live batches (SubscribeOptions.minBatchIntervalMs). Default 25 ms. */
  minBatchIntervalMs?: number;
  /** Partitions of the topics the relay creates. Default 3. */
  partitions?: number;
  replicationFactor?: number;
  /** Socket connect timeout. Default 3000 ms. */
  connectionTimeoutMs?: number;
  /** Per-request timeout (produce, metadata, admin). Default 5000 ms. */
  requestTimeoutMs?: number;
  /** kafkajs retries inside one send / connect before the error reaches the runner. Default 2. */
  retries?: number;
  /** Hard upper bound of one publish; past it the producer is considered broken and recreated. Default 20000 ms. */
  publishTimeoutMs?: number;
  /**
   * Upper bound of the serialized bytes put in one produce request. A batch above it is sent as
   * several sequential sendBatch calls so no partition's record batch can exceed the broker's
   * message.max.bytes (1 MiB by default). Default 900 000.
   */
  maxRequestBytes?: number;
  /** Consecutive failed publishes after which the producer is thrown away and recreated. Default 2. */
  recreateAfterFailures?: number;
}

const NOOP_LOGGER: RelayLogger = { warn: () => undefined, error: () => undefined };

/** Errors after which the idempotent producer's session (producer id / sequences) cannot be trusted. */
const FATAL_PRODUCER_ERRORS = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
  'PRODUCER_FENCED',
]);

class PublishTimeoutError extends Error {
  constructor(ms: number) {
    super(`Kafka publish did not complete within ${ms} ms`);
    this.name = 'PublishTimeoutError';
  }
}

/**
 * Publishes the global log to Kafka, one topic per bounded context (the event type's prefix), as
 * CloudEvents 1.0 JSON; internal bookkeeping (`idempotency.*`, `platform.*`) is left out.
 *
 * Run it under a SubscriptionRunner: `handle()` resolves only after the broker acknowledged every
 * message of the batch (acks = all, idempotent producer), so the runner's checkpoint never passes an
 * event the broker does not hold. When Kafka is unreachable `handle()` throws within a few seconds and
 * the runner retries the same batch. Each event reaches its topic once: the checkpoint may lag what
 * the broker holds (a crash between an acknowledged send and the checkpoint's save, a send that failed
 * after part of it landed), so when the relay starts and after every failed send it reads the last
 * message of each partition (TopicTails) and skips the events a partition already holds.
 * Messages are keyed by stream id, so each resource's events stay in order inside one partition (a
 * stream holds the events of one context only, so all of them are on one topic: test/e2e/log-vocabulary).
 */
export class KafkaRelay implements SubscriptionHandler {
  readonly name: string;
  readonly batchSize: number;
  readonly topicPrefix: string;
  /**
   * Nothing waits on the relay's stored checkpoint, so it is saved at most every 250 ms rather than
   * every 50: after a crash, what was sent past it is found on the topics and skipped (TopicTails).
   */
  readonly checkpointIntervalMs = 250;
  /**
   * Under load, one produce request per 25 ms rather than one per append: fewer, larger record
   * batches for the broker and for kafkajs. Downstream sees an event at most 25 ms later.
   */
  readonly minBatchIntervalMs: number;
  /** Events acknowledged by the broker since start (metrics). */
  published = 0;
  /** Milliseconds the last successful publish (connect-if-needed + sendBatch + ack) took. */
  lastPublishLatencyMs = 0;
  /** Failed publishes since start. */
  failures = 0;
  lastError: string | null = null;
  /** Producers created (1 + recreations). */
  producersCreated = 0;

  private readonly kafka: Kafka;
  private readonly logger: RelayLogger;
  private producer: Producer | null = null;
  private producerConnected = false;
  private connecting: Promise<Producer> | null = null;
  private topicsEnsured = false;
  private consecutiveFailures = 0;
  private stopped = false;
  /**
   * What the topics already held when the relay (re)started or after a failed send: events at or
   * below their partition's tail are skipped instead of written twice. Null once a batch has passed
   * every tail (the common case: one comparison per batch, nothing per event).
   */
  private tails: TopicTails | null = null;
  /** The tails must be read before the next send: at start, and after a send whose outcome is unknown. */
  private tailsStale = true;
  /** Events skipped because their partition already held them (metrics, tests). */
  skippedAlreadyWritten = 0;
  /** Times the topics' tails were read. */
  tailReads = 0;

  constructor(private readonly options: KafkaRelayOptions) {
    if (!options.brokers?.length) throw new Error('KafkaRelay needs at least one broker');
    this.name = options.name ?? 'relay:kafka';
    this.batchSize = options.batchSize ?? 2000;
    this.minBatchIntervalMs = options.minBatchIntervalMs ?? 25;
    this.topicPrefix = options.topicPrefix ?? 'cloud';
    this.logger = options.logger ?? NOOP_LOGGER;
    const retries = options.retries ?? 2;
    const logger = this.logger;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      connectionTimeout: options.connectionTimeoutMs ?? 3000,
      requestTimeout: options.requestTimeoutMs ?? 5000,
      enforceRequestTimeout: true,
      retry: { retries, initialRetryTime: 100, maxRetryTime: 1000, factor: 0.2, multiplier: 2 },
      logLevel: options.logger ? KafkaLogLevel.WARN : KafkaLogLevel.NOTHING,
      logCreator:
        () =>
        ({ level, label, log }: LogEntry) => {
          const { message, ...extra } = log;
          // kafkajs' own errors surface through handle()'s rejection; keep its chatter at debug.
          logger.debug?.(`kafkajs ${label}: ${message}`, { level, ...extra });
        },
    });
  }

  /** Every topic this relay may write. */
  get topics(): string[] {
    return allTopics(this.options.contexts, this.topicPrefix);
  }

  /**
   * Connects the producer and creates the topics. Throws when Kafka is unreachable; `handle()`
   * connects lazily as well, so a caller may log that error and carry on.
   */
  async start(): Promise<void> {
    this.stopped = false;
    await this.ensureProducer();
    await this.readTailsIfStale();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.tailsStale = true;
    await this.dropProducer();
  }

  async handle(events: RecordedEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.stopped) throw new Error('KafkaRelay is stopped');
    const started = performance.now();
    const timeoutMs = this.options.publishTimeoutMs ?? 20000;
    try {
      await withTimeout(this.publish(events), timeoutMs, () => new PublishTimeoutError(timeoutMs));
    } catch (err) {
      this.failures++;
      this.consecutiveFailures++;
      this.lastError = err instanceof Error ? err.message : String(err);
      // Part of the batch may be on the broker (a partition's request acknowledged, another's not; an
      // ack lost with the connection): what the topics hold is read again before the next send.
      this.tailsStale = true;
      const recreate =
        err instanceof PublishTimeoutError ||
        isFatalProducerError(err) ||
        this.consecutiveFailures >= (this.options.recreateAfterFailures ?? 2);
      this.logger.warn('kafka relay: publish failed', {
        error: this.lastError,
        events: events.length,
        fromPosition: events[0].position,
        consecutiveFailures: this.consecutiveFailures,
        recreateProducer: recreate,
      });
      if (recreate) await this.dropProducer();
      throw err;
    }
    this.consecutiveFailures = 0;
    this.published += events.length;
    this.lastPublishLatencyMs = performance.now() - started;
  }

  private async publish(events: RecordedEvent[]): Promise<void> {
    const producer = await this.ensureProducer();
    await this.readTailsIfStale();
    if (this.tails) events = this.notYetWritten(events, this.tails);
    for (const chunk of this.chunks(events)) {
      await producer.sendBatch({
        topicMessages: chunk,
        acks: -1,
        timeout: this.options.requestTimeoutMs ?? 5000,
        compression: CompressionTypes.None,
      });
    }
  }

  /** Reads what the topics hold (TopicTails) when the relay starts or a send failed; nothing otherwise. */
  private async readTailsIfStale(): Promise<void> {
    if (!this.tailsStale) return;
    this.tails = await TopicTails.read(this.kafka, this.topics, this.topicPrefix, this.name.replace(/[^\w.-]/g, '_'), 15_000);
    this.tailsStale = false;
    this.tailReads++;
  }

  /**
   * The events of the batch their partition does not hold yet. Once the batch reaches past every
   * partition's tail, the tails are dropped: later batches are all new.
   */
  private notYetWritten(events: RecordedEvent[], tails: TopicTails): RecordedEvent[] {
    if (events[0].position > tails.max) {
      this.tails = null;
      return events;
    }
    const out = events.filter((e) => isInternal(e) || !tails.holds(topicOf(e, this.topicPrefix), e.streamId, e.position));
    this.skippedAlreadyWritten += events.length - out.length;
    if (events[events.length - 1].position >= tails.max) this.tails = null;
    return out;
  }

  /** Groups the batch per topic (order kept) and splits it by size; usually one chunk = one sendBatch. */
  private chunks(events: RecordedEvent[]): TopicMessages[][] {
    const maxBytes = this.options.maxRequestBytes ?? 900_000;
    const out: TopicMessages[][] = [];
    let current = new Map<string, Message[]>();
    let bytes = 0;
    for (const e of events) {
      if (isInternal(e)) continue;
      const value = serializeCloudEvent(e);
      const size = Buffer.byteLength(value) + e.streamId.length + e.id.length + e.type.length + 96;
      if (bytes > 0 && bytes + size > maxBytes) {
        out.push(toTopicMessages(current));
        current = new Map();
        bytes = 0;
      }
      const topic = topicOf(e, this.topicPrefix);
      let list = current.get(topic);
      if (!list) current.set(topic, (list = []));
      list.push({
        key: e.streamId,
        value,
        headers: { ce_id: e.id, ce_type: e.type, 'content-type': CLOUDEVENTS_CONTENT_TYPE },
      });
      bytes += size;
    }
    if (bytes > 0) out.push(toTopicMessages(current));
    return out;
  }

  private ensureProducer(): Promise<Producer> {
    if (this.producer && this.producerConnected) return Promise.resolve(this.producer);
    if (!this.connecting) {
      this.connecting = this.connect().finally(() => (this.connecting = null));
    }
    return this.connecting;
  }

  private async connect(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        idempotent: true,
        // One request in flight per broker: with kafkajs' idempotent producer this keeps the per-partition
        // sequence (and so the per-key order) intact across retries.
        maxInFlightRequests: 1,
        allowAutoTopicCreation: true,
        createPartitioner: cachedKeyPartitioner,
        retry: {
          retries: this.options.retries ?? 2,
          initialRetryTime: 100,
          maxRetryTime: 1000,
          factor: 0.2,
          multiplier: 2,
        },
      });
      producer.on(producer.events.DISCONNECT, () => {
        if (this.producer === producer) this.producerConnected = false;
      });
      this.producer = producer;
      this.producersCreated++;
    }
    const producer = this.producer;
    await producer.connect();
    this.producerConnected = true;
    if (!this.topicsEnsured) await this.ensureTopics();
    this.logger.info?.('kafka relay: producer connected', { brokers: this.options.brokers });
    return producer;
  }

  /** Creates the relay's topics (3 partitions); already-existing topics are fine; failures fall back to auto-create. */
  private async ensureTopics(): Promise<void> {
    let admin: Admin | null = null;
    try {
      admin = this.kafka.admin({ retry: { retries: this.options.retries ?? 2, initialRetryTime: 100, maxRetryTime: 1000 } });
      await admin.connect();
      const existing = new Set(await admin.listTopics());
      const missing = this.topics.filter((t) => !existing.has(t));
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: true,
          timeout: this.options.requestTimeoutMs ?? 5000,
          topics: missing.map((topic) => ({
            topic,
            numPartitions: this.options.partitions ?? 3,
            replicationFactor: this.options.replicationFactor ?? 1,
          })),
        });
      }
      this.topicsEnsured = true;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/already exists/i.test(message) || (err as { type?: string }).type === 'TOPIC_ALREADY_EXISTS') {
        this.topicsEnsured = true;
      } else {
        // Not fatal: the broker may auto-create topics, and the next connect tries again.
        this.logger.warn('kafka relay: could not create topics, relying on auto-create', { error: message });
      }
    } finally {
      await admin?.disconnect().catch(() => undefined);
    }
  }

  /** Throws the producer away (its idempotent session included); the next publish creates a fresh one. */
  private async dropProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    this.producerConnected = false;
    if (producer) await withTimeout(producer.disconnect(), 5000, () => new Error('disconnect timeout')).catch(() => undefined);
  }
}

function toTopicMessages(map: Map<string, Message[]>): TopicMessages[] {
  return [...map.entries()].map(([topic, messages]) => ({ topic, messages }));
}

function isFatalProducerError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const x = e as { type?: string; retriable?: boolean; name?: string; originalError?: unknown; cause?: unknown };
    if (x.type && FATAL_PRODUCER_ERRORS.has(x.type)) return true;
    if (x.name === 'KafkaJSNonRetriableError' && !x.originalError) return true;
    e = x.originalError ?? x.cause;
  }
  return false;
}

function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
