import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { RecordedEvent } from '../../../../libs/eventstore/src/event-store.port';
import { AppError } from '../../../../libs/application/src/errors';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { EventTail, type Following, type TailEntry } from '../../../../libs/subscriptions/src/event-tail';
import { EVENT_INDEX, historyCloudEvent, scopeOfEvent } from '../../../../projections/event-index/event-index.projection';
import { PROJECTIONS } from '../../../../contexts/registrations';
import { PLATFORM } from '../tokens';
import { typeMatches, type TypeFilter } from './event-filters';

/** The types the history shows: those the event index is built for (every domain context's, no bookkeeping). */
const HISTORY_TYPES: ReadonlySet<string> = new Set(PROJECTIONS.find((p) => p.name === EVENT_INDEX.name)?.eventTypes ?? []);

/** An event as the streams hand it out, derived once per process for every subscriber. */
export class StreamedEvent {
  /** The data scope whose keys may see it; null when none may (no project, or not a history type). */
  readonly scope: string | null;
  private json?: string;

  constructor(readonly event: RecordedEvent) {
    this.scope = HISTORY_TYPES.has(event.type) ? scopeOfEvent(event) : null;
  }

  /** The CloudEvent JSON text (secrets stripped as on the topics, the test scope bared), serialised once. */
  cloudEventJson(): string {
    return (this.json ??= JSON.stringify(historyCloudEvent(this.event)));
  }
}

/** Which events a subscriber gets: its key's scope (DECISIONS 21), and optionally types and a subject. */
export interface StreamSelection {
  scope: string;
  types?: TypeFilter[];
  subject?: string;
}

export const selects = (s: StreamSelection, e: StreamedEvent): boolean =>
  e.scope === s.scope && (!s.types?.length || s.types.some((t) => typeMatches(t, e.event.type))) && (s.subject === undefined || e.event.streamId === s.subject);

/** What a transport (SSE, WebSocket) does with what the subscription hands it. */
export interface StreamSink {
  /** An event the selection matched. */
  event(position: number, e: StreamedEvent): void;
  /**
   * After each batch of the tail: a transport that buffers what `event` gave writes it now, once
   * (one TLS record and one syscall per subscriber and batch, not per event).
   */
  flush?(): void;
  /** Keep-alive: `reached` is the last position considered for this subscriber (matched or not). */
  tick(reached: number): void;
  /** Ends the transport (the API is shutting down). */
  end(): void;
}

export interface StreamSubscription {
  /** Replaces the selection and resumes after `after` (the WebSocket's subscribe message). */
  resubscribe(selection: StreamSelection, after: number): Promise<void>;
  close(): void;
}

/**
 * The live event streams of this API process (DECISIONS 20): every subscriber follows one shared
 * tail of the log (libs/subscriptions EventTail), which derives each event's scope and CloudEvent
 * text once; a subscriber only filters. Keep-alive ticks run every EVENT_STREAM_HEARTBEAT_MS.
 */
@Injectable()
export class EventStreams implements OnModuleDestroy {
  private readonly tail: EventTail<StreamedEvent>;
  private readonly open = new Set<StreamSink>();
  readonly heartbeatMs: number;
  /** The deployment's topics (for the AsyncAPI document). */
  readonly topicPrefix: string;
  readonly brokers: string[] | undefined;

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    this.tail = new EventTail(platform.events, (e) => new StreamedEvent(e), {}, (err) => platform.logger.warn({ err }, 'event stream tail failed; retrying'));
    this.heartbeatMs = platform.config.eventStreams.heartbeatMs;
    this.topicPrefix = platform.config.kafka?.topicPrefix ?? 'cloud';
    this.brokers = platform.config.kafka?.brokers;
  }

  /** Subscribers attached to the shared tail. */
  get followers(): number {
    return this.tail.size;
  }

  /**
   * The position a stream starts after: the one asked (400 INVALID_QUERY beyond the head), else the
   * head (the stream then starts at the next event).
   */
  async startAfter(asked: number | undefined, parameter: string): Promise<number> {
    const head = await this.platform.events.headPosition();
    if (asked === undefined) return head;
    if (asked > head) throw new AppError('INVALID_QUERY', `position ${asked} is beyond the newest event (${head})`, { source: { parameter } });
    return asked;
  }

  /** Starts handing `sink` the selected events after `after`, with a keep-alive tick every heartbeat. */
  async subscribe(selection: StreamSelection, after: number, sink: StreamSink): Promise<StreamSubscription> {
    let closed = false;
    let following: Following | null = null;
    let current = selection;
    let reached = after;
    const start = async (from: number) => {
      following?.stop();
      reached = from;
      const f = await this.tail.follow(
        from,
        {
          onEvents: (entries: readonly TailEntry<StreamedEvent>[], at: number) => {
            for (const { event, view } of entries) if (selects(current, view)) sink.event(event.position, view);
            sink.flush?.();
            reached = Math.max(reached, at);
          },
        },
        () => closed,
      );
      if (closed) f.stop();
      else following = f;
    };
    const timer = setInterval(() => sink.tick(reached), this.heartbeatMs);
    timer.unref();
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      following?.stop();
      this.open.delete(sink);
    };
    this.open.add(sink);
    await start(after);
    return {
      resubscribe: async (next, from) => {
        current = next;
        await start(from);
      },
      close,
    };
  }

  async onModuleDestroy(): Promise<void> {
    for (const sink of [...this.open]) sink.end();
    this.open.clear();
    await this.tail.close();
  }
}
