import type { EventStore } from '../../../eventstore/src/event-store.port';

/**
 * An `append` that waits for the end of the event loop's current turn and then issues every append
 * made in that turn together: the event store commits the appends queued while it commits as one
 * transaction (PGlite answers within microtasks, so records made one by one were each committed
 * alone: ~500 → ~3,400 webhook deliveries/s). Each append keeps its own expected revision and outcome.
 */
export function batchedAppend(events: EventStore): EventStore['append'] {
  const pending: Array<() => void> = [];
  return (...args) =>
    new Promise((resolve, reject) => {
      pending.push(() => events.append(...args).then(resolve, reject));
      if (pending.length === 1)
        setImmediate(() => {
          for (const go of pending.splice(0)) go();
        });
    });
}
