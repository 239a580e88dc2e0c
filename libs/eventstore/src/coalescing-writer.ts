import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { DomainError } from '../../domain/shared/domain-error';
import { aggregateStream } from './aggregate-stream';
import type { EventStore, RecordedEvent, StreamAppend } from './event-store.port';
import { WrongExpectedRevisionError } from './event-store.port';
import { handleCommand, idempotencyReservation, toNewEvent, type CommandContext, type CommandResult } from './handle-command';

interface Pending<C, S> {
  command: C;
  context: CommandContext;
  resolve: (r: OnceResult<S>) => void;
  reject: (e: unknown) => void;
}

/**
 * A key a command may use once (a wallet movement's reference): the key's own stream, appended at
 * "no stream" in the same multi-stream append as the command's events. The stream's state stays free
 * of every key it saw; a command whose key is taken decides nothing and is answered with its record.
 */
export interface OncePerKey<C> {
  streamOf: (command: C) => string;
  record: (command: C) => DomainEvent;
}

/** A command's result; `repeatOf`: its key was used already, this is the key's record (nothing was written). */
export type OnceResult<S> = CommandResult<S> & { repeatOf?: RecordedEvent };

/**
 * `handleCommand` for a hot stream (a wallet): the commands of one stream that arrive while one is
 * being written wait in this process's queue, and the next round decides them all, in arrival order,
 * on one read of the stream, and appends their events in one append at the expected revision. Each
 * command is answered as if it had run alone: its own refusal, its own events and the position of its
 * last event, the state after it. Between processes the expected revision still decides (the losing
 * round re-reads and decides again). A command carrying an Idempotency-Key reservation is written in a
 * round of its own (an append carries one reservation); a keyed request run again after a crash
 * (`recovering`, DECISIONS 5) is not queued: `handleCommand` finds its first run's events. With `once`, each writing command's key is
 * recorded on its own stream in the same (multi-stream) append, and a command whose key is taken is
 * a repeat: answered with the key's record (`repeatOf`), nothing written.
 */
export class CoalescingWriter<C, E extends DomainEvent, S> {
  private readonly queues = new Map<string, Pending<C, S>[]>();

  constructor(
    private readonly decider: Decider<C, E, S>,
    private readonly options: { attempts: number; maxBatch: number; once?: OncePerKey<C> },
  ) {}

  write(store: EventStore, streamId: string, command: C, context: CommandContext): Promise<OnceResult<S>> {
    if (context.metadata.recovering === true) return handleCommand(store, streamId, this.decider, command, context, { attempts: this.options.attempts });
    return new Promise((resolve, reject) => {
      const item = { command, context, resolve, reject };
      const queue = this.queues.get(streamId);
      if (queue) {
        queue.push(item);
        return;
      }
      this.queues.set(streamId, [item]);
      void this.drain(store, streamId);
    });
  }

  private async drain(store: EventStore, streamId: string): Promise<void> {
    const queue = this.queues.get(streamId)!;
    while (queue.length > 0) {
      const reserved = idempotencyReservation(queue[0].context) !== undefined;
      // A round uses a key once: a second command with it waits for the next round (where it is a repeat).
      const keys = new Set(this.keyOf(queue[0].command));
      let n = 1;
      if (!reserved)
        for (; n < queue.length && n < this.options.maxBatch && idempotencyReservation(queue[n].context) === undefined; n++) {
          const key = this.keyOf(queue[n].command);
          if (key.some((k) => keys.has(k))) break;
          key.forEach((k) => keys.add(k));
        }
      await this.round(store, streamId, queue.splice(0, n));
    }
    this.queues.delete(streamId);
  }

  private keyOf(command: C): string[] {
    return this.options.once ? [this.options.once.streamOf(command)] : [];
  }

  /** The record of a used key, or undefined when the key is free. */
  private async recordOf(store: EventStore, key: string): Promise<RecordedEvent | undefined> {
    return (await store.readStream(key, { maxCount: 1 }))[0];
  }

  /** Decides and writes one round; settles every command of it (never throws). */
  private async round(store: EventStore, streamId: string, batch: Pending<C, S>[]): Promise<void> {
    const once = this.options.once;
    if (once && !store.appendMany) {
      const err = new Error(`${streamId}: writing a key once needs an event store with multi-stream appends (the SQL store)`);
      for (const item of batch) item.reject(err);
      return;
    }
    /** Commands found to repeat a used key: they decide nothing, answered with the key's record. */
    const repeats = new Map<Pending<C, S>, RecordedEvent>();
    for (let attempt = 1; ; attempt++) {
      let decided: { item: Pending<C, S>; events: E[]; after: S; error?: unknown; repeatOf?: RecordedEvent }[];
      let expected: 'no_stream' | number;
      try {
        let state: S;
        ({ state, revision: expected } = await aggregateStream(store, streamId, this.decider));
        decided = batch.map((item) => {
          const repeatOf = repeats.get(item);
          if (repeatOf) return { item, events: [], after: state, repeatOf };
          try {
            const events = this.decider.decide(item.command, state);
            for (const e of events) state = this.decider.evolve(state, e);
            return { item, events, after: state };
          } catch (error) {
            return { item, events: [], after: state, error };
          }
        });
        // A repeat is answered as one whatever the decider says now (a debit repeated after the balance fell).
        if (once)
          for (const d of decided) {
            const record = d.error !== undefined ? await this.recordOf(store, once.streamOf(d.item.command)) : undefined;
            if (record) Object.assign(d, { error: undefined, repeatOf: record });
          }
      } catch (err) {
        for (const item of batch) item.reject(err);
        return;
      }
      const toAppend = decided.map((d) => d.events.map((e) => toNewEvent(e, d.item.context)));
      const all = toAppend.flat();
      const keys: StreamAppend[] = once ? decided.flatMap((d) => (d.events.length ? [{ streamId: once.streamOf(d.item.command), events: [toNewEvent(once.record(d.item.command), d.item.context)], expectedRevision: 'no_stream' as const }] : [])) : [];
      let lastPosition: number | null = null;
      if (all.length > 0) {
        try {
          const reservation = batch.length === 1 ? idempotencyReservation(batch[0].context) : undefined;
          if (keys.length > 0) lastPosition = (await store.appendMany!([{ streamId, events: all, expectedRevision: expected }, ...keys], { idempotency: reservation }))[0].position;
          else lastPosition = (await store.append(streamId, all, { expectedRevision: expected, idempotency: reservation })).position;
        } catch (err) {
          if (once && err instanceof WrongExpectedRevisionError && err.streamId !== streamId) {
            // A key was used meanwhile (another process): its command is a repeat; the round is decided again without it.
            const item = decided.find((d) => d.events.length > 0 && once.streamOf(d.item.command) === err.streamId)?.item;
            const record = item && (await this.recordOf(store, err.streamId).catch(() => undefined));
            if (item && record) {
              repeats.set(item, record);
              if (attempt < this.options.attempts) continue;
            }
          }
          if (err instanceof WrongExpectedRevisionError && attempt < this.options.attempts) continue;
          const final = err instanceof WrongExpectedRevisionError ? new DomainError('CONFLICT', `Concurrent modification of ${streamId}; retry the request`) : err;
          for (const item of batch) item.reject(final);
          return;
        }
      }
      // One writing command owns the append's last position; several need theirs read back.
      const writers = toAppend.filter((own) => own.length > 0).length;
      const positions = writers > 1 ? await this.positionsOf(store, streamId, expected, all.length, lastPosition) : new Map<string, number>();
      decided.forEach((d, i) => {
        if (d.error !== undefined) return d.item.reject(d.error);
        const own = toAppend[i];
        d.item.resolve({ state: d.after, position: own.length ? (positions.get(own[own.length - 1].id) ?? lastPosition) : null, events: d.events, ...(d.repeatOf ? { repeatOf: d.repeatOf } : {}) });
      });
      return;
    }
  }

  /** Each appended event's position (one append of several commands' events), read back by id. */
  private async positionsOf(store: EventStore, streamId: string, expected: 'no_stream' | number, count: number, lastPosition: number | null): Promise<Map<string, number>> {
    if (count === 0 || lastPosition === null) return new Map();
    const written = await store.readStream(streamId, { fromRevision: expected === 'no_stream' ? 0 : expected + 1, maxCount: count }).catch(() => []);
    return new Map(written.map((e) => [e.id, e.position]));
  }
}
