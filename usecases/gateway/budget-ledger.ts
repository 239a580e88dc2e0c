import { budgetDecider, type BudgetCommand, type BudgetState } from '../../libs/domain/gateway/budget.decider';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { toNewEvent, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { WrongExpectedRevisionError, type EventStore } from '../../libs/eventstore/src/event-store.port';

interface Known {
  state: BudgetState;
  revision: number | 'no_stream';
}

/**
 * Reservations and settlements on a key's month stream, appended at the expected revision: the store
 * decides concurrent reservations one after another, across processes. This process keeps each
 * stream's fold and appends on it without reading first; a lost race (or a refusal on that guess)
 * reads only the events appended since (a month's stream is never re-read whole) and decides again.
 */
export class BudgetLedger {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly events: EventStore,
    private readonly maxAttempts = 200,
  ) {}

  async decide(stream: string, command: BudgetCommand, ctx: CommandContext): Promise<BudgetState> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      // The first attempt decides on what this process last saw of the stream (or on no stream): the
      // append's expected revision checks that guess. A refusal or a no-op is answered from the stream, never from a guess.
      const guess = attempt === 0;
      const known = guess ? this.known.get(stream) ?? { state: budgetDecider.initialState(), revision: 'no_stream' as const } : await this.catchUp(stream);
      let decided;
      try {
        decided = budgetDecider.decide(command, known.state);
      } catch (err) {
        if (guess) continue;
        throw err;
      }
      if (decided.length === 0) {
        if (guess) continue;
        return known.state;
      }
      try {
        const { nextRevision } = await this.events.append(stream, decided.map((e) => toNewEvent(e, ctx)), { expectedRevision: known.revision });
        const state = decided.reduce(budgetDecider.evolve, known.state);
        this.remember(stream, { state, revision: nextRevision });
        return state;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
      }
    }
    throw new DomainError('CONFLICT', `Concurrent modification of ${stream}; retry the request`);
  }

  private async catchUp(stream: string): Promise<Known> {
    let known = this.known.get(stream) ?? { state: budgetDecider.initialState(), revision: 'no_stream' as const };
    const newer = await this.events.readStream(stream, { fromRevision: known.revision === 'no_stream' ? 0 : known.revision + 1 });
    for (const e of newer) known = { state: budgetDecider.evolve(known.state, { type: e.type, data: e.data } as never), revision: e.revision };
    this.remember(stream, known);
    return known;
  }

  private remember(stream: string, known: Known): void {
    if (this.known.size >= 10_000 && !this.known.has(stream)) this.known.clear();
    this.known.set(stream, known);
  }
}
