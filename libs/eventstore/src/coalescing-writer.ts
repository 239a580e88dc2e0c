import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { DomainError } from '../../domain/shared/domain-error';
import { aggregateStream } from './aggregate-stream';
import type { EventStore } from './event-store.port';
import { WrongExpectedRevisionError } from './event-store.port';
import { handleCommand, idempotencyReservation, toNewEvent, type CommandContext, type CommandResult } from './handle-command';

interface Pending<C, S> {
  command: C;
  context: CommandContext;
  resolve: (r: CommandResult<S>) => void;
  reject: (e: unknown) => void;
}

/**
 * `handleCommand` for a hot stream (a wallet): the commands of one stream that arrive while one is
 * being written wait in this process's queue, and the next round decides them all, in arrival order,
 * on one read of the stream, and appends their events in one append at the expected revision. Each
 * command is answered as if it had run alone: its own refusal, its own events and the position of its
 * last event, the state after it. Between processes the expected revision still decides (the losing
 * round re-reads and decides again). A command carrying an Idempotency-Key reservation is written in a
 * round of its own (an append carries one reservation); a keyed request run again after a crash
 * (`recovering`, DECISIONS 5) is not queued: `handleCommand` finds its first run's events.
 */
export class CoalescingWriter<C, E extends DomainEvent, S> {
  private readonly queues = new Map<string, Pending<C, S>[]>();

  constructor(
    private readonly decider: Decider<C, E, S>,
    private readonly options: { attempts: number; maxBatch: number },
  ) {}

  write(store: EventStore, streamId: string, command: C, context: CommandContext): Promise<CommandResult<S>> {
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
      let n = 1;
      if (!reserved) while (n < queue.length && n < this.options.maxBatch && idempotencyReservation(queue[n].context) === undefined) n++;
      await this.round(store, streamId, queue.splice(0, n));
    }
    this.queues.delete(streamId);
  }

  /** Decides and writes one round; settles every command of it (never throws). */
  private async round(store: EventStore, streamId: string, batch: Pending<C, S>[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let decided: { item: Pending<C, S>; events: E[]; after: S; error?: unknown }[];
      let expected: 'no_stream' | number;
      try {
        let state: S;
        ({ state, revision: expected } = await aggregateStream(store, streamId, this.decider));
        decided = batch.map((item) => {
          try {
            const events = this.decider.decide(item.command, state);
            for (const e of events) state = this.decider.evolve(state, e);
            return { item, events, after: state };
          } catch (error) {
            return { item, events: [], after: state, error };
          }
        });
      } catch (err) {
        for (const item of batch) item.reject(err);
        return;
      }
      const toAppend = decided.map((d) => d.events.map((e) => toNewEvent(e, d.item.context)));
      const all = toAppend.flat();
      let lastPosition: number | null = null;
      if (all.length > 0) {
        try {
          const reservation = batch.length === 1 ? idempotencyReservation(batch[0].context) : undefined;
          lastPosition = (await store.append(streamId, all, { expectedRevision: expected, idempotency: reservation })).position;
        } catch (err) {
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
        d.item.resolve({ state: d.after, position: own.length ? (positions.get(own[own.length - 1].id) ?? lastPosition) : null, events: d.events });
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
