import { deepStrictEqual, fail } from 'node:assert/strict';
import { DomainError, type Decider, type DomainErrorCode, type DomainEvent } from './domain-error';

/**
 * Given/When/Then for a decider, after Emmett's DeciderSpecification: the stream so far, a command,
 * then the events decided or the refusal's code. Plain assertions, so it needs no test framework.
 *
 *   const given = deciderSpec(jobDecider);
 *   given([enqueued]).when({ type: 'StartAttempt', attempt: 1, now }).then([started]);
 *   given([]).when({ type: 'RetryJob', now }).thenThrows('NOT_FOUND');
 */
export function deciderSpec<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return (history: E[]) => ({
    when: (command: C) => {
      const decide = () => decider.decide(command, history.reduce(decider.evolve, decider.initialState()));
      return {
        /** Exactly these events, in this order. */
        then(expected: E[]): void {
          deepStrictEqual(decide(), expected);
        },
        /** Accepted, but nothing to record (a repeat, or nothing changed). */
        thenNothingHappens(): void {
          deepStrictEqual(decide(), []);
        },
        /** Refused with this DomainError code (and, when given, a message matching `message`). */
        thenThrows(code: DomainErrorCode, message?: RegExp): void {
          let decided: E[];
          try {
            decided = decide();
          } catch (err) {
            if (!(err instanceof DomainError)) fail(`expected DomainError ${code}, got ${String(err)}`);
            deepStrictEqual(err.code, code, `expected refusal ${code}, got ${err.code} (${err.message})`);
            if (message && !message.test(err.message)) fail(`refusal ${code} says "${err.message}", expected ${String(message)}`);
            return;
          }
          fail(`expected refusal ${code}, decided [${decided.map((e) => e.type).join(', ')}]`);
        },
      };
    },
  });
}
