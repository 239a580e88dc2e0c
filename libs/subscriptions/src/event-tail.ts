import type { EventStore, RecordedEvent, Subscription } from '../../eventstore/src/event-store.port';

/** What a follower is handed: events in position order, each once, and the position the tail has considered. */
export interface TailFollower<V> {
  /** Events after the follower's position, in order; `reached` is the last position considered (matched or not). */
  onEvents(entries: readonly TailEntry<V>[], reached: number): void;
}

export interface TailEntry<V> {
  event: RecordedEvent;
  /** What the tail derived from the event once for every follower (its scope, its serialised form). */
  view: V;
}

export interface Following {
  /** Position of the last event handed to the follower. */
  readonly position: number;
  stop(): void;
}

export interface EventTailOptions {
  /** Recent events kept for followers that attach a little behind the head (default 10,000). */
  bufferSize?: number;
  /** Page size of a follower's catch-up reads below the buffer (default 500). */
  catchUpPage?: number;
}

/**
 * One tail of the global log shared by every live reader of a process (ARCHITECTURE, "Event
 * history"): a single subscription from the head, whose events are derived once (`derive`) and handed
 * to each follower, so a follower never costs a query per event. A follower starting behind the
 * tail's recent buffer catches up by pages of `readAll`, then joins the shared tail in the same turn
 * of the event loop as its last catch-up check, so no event is lost between the two and none is
 * handed twice (each follower also drops what is not past its own position).
 */
export class EventTail<V> {
  private readonly buffer: TailEntry<V>[] = [];
  /** The buffer holds every event in (floor, reached]. */
  private floor = 0;
  private reached = 0;
  private subscription: Subscription | null = null;
  private starting: Promise<void> | null = null;
  private readonly followers = new Set<{ position: number; follower: TailFollower<V> }>();
  private readonly bufferSize: number;
  private readonly catchUpPage: number;
  private closed = false;

  constructor(
    private readonly store: Pick<EventStore, 'headPosition' | 'readAll' | 'subscribeToAll'>,
    private readonly derive: (event: RecordedEvent) => V,
    options: EventTailOptions = {},
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.bufferSize = options.bufferSize ?? 10_000;
    this.catchUpPage = options.catchUpPage ?? 500;
  }

  /** Followers attached to the shared tail now. */
  get size(): number {
    return this.followers.size;
  }

  /** Position the shared tail has reached (0 before it started). */
  get position(): number {
    return this.reached;
  }

  private start(): Promise<void> {
    this.starting ??= (async () => {
      const head = await this.store.headPosition();
      this.floor = head;
      this.reached = head;
      this.subscription = this.store.subscribeToAll({
        fromPosition: head,
        onEvents: async (events) => this.push(events),
        onError: this.onError,
      });
    })();
    return this.starting;
  }

  private push(events: RecordedEvent[]): void {
    const entries = events.filter((e) => e.position > this.reached).map((event) => ({ event, view: this.derive(event) }));
    if (entries.length === 0) return;
    this.buffer.push(...entries);
    this.reached = entries[entries.length - 1]!.event.position;
    const excess = this.buffer.length - this.bufferSize;
    if (excess > 0) this.floor = this.buffer.splice(0, excess)[excess - 1]!.event.position;
    for (const f of this.followers) this.hand(f, entries, this.reached);
  }

  /** Hands the entries past the follower's position; `considered`: every event up to it has been handed (the tail's reach once attached). */
  private hand(f: { position: number; follower: TailFollower<V> }, entries: readonly TailEntry<V>[], considered = f.position): void {
    const fresh = entries[0] && entries[0].event.position > f.position ? entries : entries.filter((e) => e.event.position > f.position);
    if (fresh.length) f.position = fresh[fresh.length - 1]!.event.position;
    try {
      f.follower.onEvents(fresh, Math.max(f.position, considered));
    } catch (err) {
      this.onError(err);
    }
  }

  /**
   * Hands `follower` every event after position `after`, in order, each once: first by catch-up
   * reads if `after` is below the recent buffer, then from the shared tail. `isStopped` ends a
   * catch-up early (the client went away).
   */
  async follow(after: number, follower: TailFollower<V>, isStopped: () => boolean = () => false): Promise<Following> {
    await this.start();
    const f = { position: after, follower };
    let stopped = false;
    const following: Following = {
      get position() {
        return f.position;
      },
      stop: () => {
        stopped = true;
        this.followers.delete(f);
      },
    };
    while (f.position < this.floor && !this.closed) {
      if (stopped || isStopped()) return following;
      const page = await this.store.readAll({ fromPosition: f.position, maxCount: this.catchUpPage });
      if (page.length === 0) break;
      const entries = page.filter((e) => e.position > f.position).map((event) => ({ event, view: this.derive(event) }));
      this.hand(f, entries);
    }
    if (stopped || isStopped() || this.closed) return following;
    // Same turn as the check above: the buffer holds everything after f.position up to `reached`.
    this.hand(f, this.buffer.filter((e) => e.event.position > f.position), this.reached);
    this.followers.add(f);
    return following;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.followers.clear();
    await this.starting?.catch(() => undefined);
    await this.subscription?.stop();
  }
}
