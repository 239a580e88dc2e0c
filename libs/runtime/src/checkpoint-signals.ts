import type { SqlClient } from '../../eventstore/src/sql/sql-client';
import type { CheckpointStore } from '../../subscriptions/src/checkpoint-store';

/**
 * Read-your-writes in a split deployment (DECISIONS 12): the worker runs the projections and sagas,
 * the API node waits for them to pass a write's position. The worker tells every API node of each
 * checkpoint it saves (PostgreSQL NOTIFY on the event store's own connection), so a wait is woken
 * when the position is passed instead of reading the checkpoints on a timer.
 */
export interface Signals {
  publish(channel: string, payload: string): Promise<void>;
  /** `onSignal('')` after the listening connection was lost and made again: signals may have been missed. */
  listen(channel: string, onSignal: (payload: string) => void): Promise<() => Promise<void>>;
}

/** Signals over PostgreSQL LISTEN/NOTIFY (the event store's SQL client). */
export function sqlSignals(sql: SqlClient): Signals {
  return {
    publish: async (channel, payload) => void (await sql.query('SELECT pg_notify($1, $2)', [channel, payload])),
    listen: (channel, onSignal) => sql.listen(channel, onSignal),
  };
}

/** The channel of a store schema's checkpoint signals. */
export const checkpointChannel = (schema: string) => `ckpt_${schema}`.slice(0, 63); // NAMEDATALEN - 1

/** A checkpoint store that signals each save (the worker's side). */
export class SignallingCheckpointStore implements CheckpointStore {
  constructor(
    private readonly inner: CheckpointStore,
    private readonly signals: Signals,
    private readonly channel: string,
  ) {}

  load(subscription: string): Promise<number> {
    return this.inner.load(subscription);
  }

  async save(subscription: string, position: number): Promise<void> {
    await this.inner.save(subscription, position);
    // A lost signal costs a waiter its wait (it answers 202 as after any timeout), never a write.
    await this.signals.publish(this.channel, JSON.stringify([subscription, position])).catch(() => undefined);
  }
}

interface Waiter {
  names: string[];
  position: number;
  done: (caughtUp: boolean) => void;
}

/** The API node's side: the checkpoints it has heard of, and the waits they wake. */
export class CheckpointWatch {
  private readonly known = new Map<string, number>();
  private readonly waiters = new Set<Waiter>();
  private unlisten: (() => Promise<void>) | null = null;
  /** Reads of the stored checkpoints (one per name a wait starts with; none while it waits). */
  loads = 0;

  private constructor(private readonly checkpoints: CheckpointStore) {}

  static async open(signals: Signals, channel: string, checkpoints: CheckpointStore): Promise<CheckpointWatch> {
    const watch = new CheckpointWatch(checkpoints);
    watch.unlisten = await signals.listen(channel, (payload) => watch.heard(payload));
    return watch;
  }

  /**
   * Resolves true once every named subscription has passed `position`, false after `timeoutMs`.
   * The waiter is registered before the stored checkpoints are read, so a signal that arrives
   * between the two is not lost.
   */
  async waitFor(names: string[], position: number, timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const waiter: Waiter = { names, position, done: () => undefined };
    const outcome = new Promise<boolean>((resolve) => {
      waiter.done = resolve;
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    this.waiters.add(waiter);
    try {
      await Promise.all(names.map((n) => this.refresh(n)));
      // Already passed: a signal heard before this wait began moved `known` there, so the reads above
      // advanced nothing and woke no one.
      if (this.passed(waiter) || (await outcome)) return true;
      // The deadline: one last look at the store, in case a signal was lost with its connection.
      await Promise.all(names.map((n) => this.refresh(n)));
      return this.passed(waiter);
    } finally {
      clearTimeout(timer);
      this.waiters.delete(waiter);
    }
  }

  async close(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
  }

  private heard(payload: string): void {
    // '' after a reconnect: what was signalled meanwhile is unknown, so what is waited on is read back.
    if (payload === '') {
      for (const name of new Set([...this.waiters].flatMap((w) => w.names))) void this.refresh(name).catch(() => undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'number') this.advance(parsed[0], parsed[1]);
  }

  private async refresh(name: string): Promise<void> {
    this.loads++;
    this.advance(name, await this.checkpoints.load(name));
  }

  private advance(name: string, position: number): void {
    if (position <= (this.known.get(name) ?? -1)) return;
    this.known.set(name, position);
    for (const w of this.waiters) if (this.passed(w)) w.done(true);
  }

  private passed(w: Waiter): boolean {
    return w.names.every((n) => (this.known.get(n) ?? -1) >= w.position);
  }
}
