import { budgetDecider, type BudgetCommand, type BudgetState } from '../../libs/domain/gateway/budget.decider';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { aggregateStream, type AggregatedStream } from '../../libs/eventstore/src/aggregate-stream';
import { toNewEvent, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { WrongExpectedRevisionError, type EventStore, type NewEvent } from '../../libs/eventstore/src/event-store.port';

/** What this process last saw of a stream (position unknown after its own append). */
type Known = AggregatedStream<BudgetState>;
const NONE = (): Known => ({ state: budgetDecider.initialState(), revision: 'no_stream', position: null });

/** Commands of one caller, decided in order as one unit; answered with the state after them (or their refusal). */
interface Pending {
  commands: readonly BudgetCommand[];
  ctx: CommandContext;
  resolve(state: BudgetState): void;
  reject(err: unknown): void;
}

/**
 * Reservations and settlements on a key's month stream, appended at the expected revision: the store
 * decides concurrent reservations one after another, across processes. This process keeps each
 * stream's fold and appends on it without reading first; a lost race (or a refusal on that guess)
 * reads only the events appended since (a month's stream is never re-read whole) and decides again.
 *
 * Group commit: one append per stream is in flight at a time in this process; the calls that arrive
 * meanwhile wait and are then decided together, in arrival order, on the fold that append left, and
 * appended as one (one expected revision). Concurrent calls of one key so cost one append per round
 * instead of racing each other at the same revision and retrying one by one.
 */
export class BudgetLedger {
  private readonly known = new Map<string, Known>();
  /** Per stream with an append in flight: the calls waiting for the next one. */
  private readonly waiting = new Map<string, Pending[]>();

  constructor(
    private readonly events: EventStore,
    private readonly maxAttempts = 200,
  ) {}

  /** Decides `command` (or several, in order, as one unit: all their events or none) on `stream`. */
  decide(stream: string, command: BudgetCommand | readonly BudgetCommand[], ctx: CommandContext): Promise<BudgetState> {
    return new Promise<BudgetState>((resolve, reject) => {
      const pending: Pending = { commands: Array.isArray(command) ? command : [command as BudgetCommand], ctx, resolve, reject };
      const queue = this.waiting.get(stream);
      if (queue) return void queue.push(pending);
      this.waiting.set(stream, [pending]);
      void this.drain(stream);
    });
  }

  private async drain(stream: string): Promise<void> {
    const queue = this.waiting.get(stream)!;
    try {
      for (let batch = queue.splice(0); batch.length > 0; batch = queue.splice(0)) await this.commit(stream, batch);
    } finally {
      this.waiting.delete(stream);
    }
  }

  private async commit(stream: string, batch: Pending[]): Promise<void> {
    try {
      for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
        // The first attempt decides on what this process last saw of the stream (or on no stream): the
        // append's expected revision checks that guess. A refusal or a no-op is answered from the stream, never from a guess.
        const guess = attempt === 0;
        const known = guess ? this.known.get(stream) ?? NONE() : await this.catchUp(stream);
        const decided = this.decideBatch(batch, known.state, guess);
        if (!decided) continue;
        if (decided.events.length > 0) {
          try {
            const { nextRevision } = await this.events.append(stream, decided.events, { expectedRevision: known.revision });
            this.remember(stream, { state: decided.state, revision: nextRevision, position: null });
          } catch (err) {
            if (err instanceof WrongExpectedRevisionError) continue;
            throw err;
          }
        }
        for (const a of decided.answers) (a.refusal === undefined ? a.pending.resolve(a.state) : a.pending.reject(a.refusal));
        return;
      }
      throw new DomainError('CONFLICT', `Concurrent modification of the budget ${stream}; retry the request`);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  /** Each caller's commands in order on the evolving state; null when a guess met a refusal or a no-op (the stream must answer those). */
  private decideBatch(batch: Pending[], start: BudgetState, guess: boolean) {
    let state = start;
    const events: NewEvent[] = [];
    const answers: { pending: Pending; state: BudgetState; refusal?: unknown }[] = [];
    for (const pending of batch) {
      let s = state;
      const mine: NewEvent[] = [];
      try {
        for (const command of pending.commands) {
          const decided = budgetDecider.decide(command, s);
          s = decided.reduce(budgetDecider.evolve, s);
          mine.push(...decided.map((e) => toNewEvent(e, pending.ctx)));
        }
      } catch (refusal) {
        if (guess) return null;
        answers.push({ pending, state, refusal });
        continue;
      }
      if (guess && mine.length === 0) return null;
      state = s;
      events.push(...mine);
      answers.push({ pending, state: s });
    }
    return { state, events, answers };
  }

  private async catchUp(stream: string): Promise<Known> {
    const known = await aggregateStream(this.events, stream, budgetDecider, { from: this.known.get(stream) ?? NONE() });
    this.remember(stream, known);
    return known;
  }

  private remember(stream: string, known: Known): void {
    if (this.known.size >= 10_000 && !this.known.has(stream)) this.known.clear();
    this.known.set(stream, known);
  }
}
