import {
  ANY,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../event-store.port';
import { WrongExpectedRevisionError } from '../event-store.port';
import { CatchUpSubscription } from '../catch-up-subscription';

/**
 * EventStoreDB adapter. The port's global position is the event's prepare position in `$all`
 * (unique and increasing per event); system events (`$`-prefixed types or streams) are hidden.
 * Runs the shared contract suite when ESDB_URL is set (`npm run test:esdb`); no EventStoreDB
 * server can be installed on the CI machines, so CI does not run it.
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb';
  private readonly subscriptions = new Set<CatchUpSubscription>();

  constructor(private readonly client: EventStoreDBClient) {}

  static connect(connectionString: string): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString));
  }

  async append(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    const expected: AppendExpectedRevision =
      options.expectedRevision === 'any' ? ANY : options.expectedRevision === 'no_stream' ? NO_STREAM : BigInt(options.expectedRevision);
    try {
      const res = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as never, metadata: e.metadata as never })),
        { expectedRevision: expected },
      );
      // The append's own events are the newest of the stream: read their positions back.
      const written = await this.readStream(streamId, { fromRevision: Number(res.nextExpectedRevision), maxCount: 1 });
      for (const s of this.subscriptions) s.notify();
      return { nextRevision: Number(res.nextExpectedRevision), position: written[0]?.position ?? Number(res.position?.prepare ?? 0) };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = typeof err.actualVersion === 'bigint' ? Number(err.actualVersion) : 'no_stream';
        throw new WrongExpectedRevisionError(streamId, options.expectedRevision, actual);
      }
      throw err;
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: FORWARDS,
        fromRevision: BigInt(options.fromRevision ?? 0),
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
      });
      for await (const resolved of read) {
        const r = toRecorded(resolved);
        if (r) out.push(r);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const from = options.fromPosition <= 0 ? START : { commit: BigInt(options.fromPosition), prepare: BigInt(options.fromPosition) };
    const out: RecordedEvent[] = [];
    // Over-read to make up for hidden system events and the inclusive start.
    const read = this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: options.maxCount * 2 + 1 });
    for await (const resolved of read as AsyncIterable<AllStreamResolvedEvent>) {
      const r = toRecorded(resolved);
      if (!r || r.position <= options.fromPosition) continue;
      out.push(r);
      if (out.length >= options.maxCount) break;
    }
    return out;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const sub = new CatchUpSubscription(this, options, 200);
    this.subscriptions.add(sub);
    const stop = sub.stop.bind(sub);
    sub.stop = async () => {
      this.subscriptions.delete(sub);
      await stop();
    };
    return sub;
  }

  async headPosition(): Promise<number> {
    for await (const resolved of this.client.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 50 })) {
      const r = toRecorded(resolved);
      if (r) return r.position;
    }
    return 0;
  }

  async ping(): Promise<void> {
    await this.readStream('$ping-probe', { maxCount: 1 });
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const e = resolved.event;
  if (!e || e.type.startsWith('$') || e.streamId.startsWith('$')) return null;
  const position = Number(e.position?.prepare ?? resolved.commitPosition ?? 0);
  return {
    id: e.id,
    type: e.type,
    streamId: e.streamId,
    revision: Number(e.revision),
    position,
    data: e.data as Record<string, unknown>,
    metadata: (e.metadata ?? { schemaVersion: 1 }) as EventMetadata,
    recordedAt: e.created.toISOString(),
  };
}
