import type pino from 'pino';
import type { EventStore, RecordedEvent } from '../../../eventstore/src/event-store.port';
import { WrongExpectedRevisionError } from '../../../eventstore/src/event-store.port';
import { causedBy, toNewEvent } from '../../../eventstore/src/handle-command';
import { effectDecider, effectIdFor, effectStream, type EffectEvent, type EffectOutcome, type EffectState } from '../../../domain/outbox/effect';
import type { RetryPolicy } from '../../../domain/outbox/retry-policy';
import type { ReadCollection } from '../../../readstore/src/read-store.port';
import type { SubscriptionHandler } from '../../../subscriptions/src/subscription-runner';
import type { EffectDoc } from './effect-doc';
import type { Clock } from '../clock';
import { batchedAppend } from './batched-append';
import { EffectRunner } from './effect-runner';

export type PendingEffect = Extract<EffectState, { kind: string }> & { effectId: string; /** The attempt about to be made (1-based). */ attempt: number };

/**
 * A kind of effect (an invitation mail, a forward to the tracker). `perform` makes one attempt and
 * says what it came to; a throw is a retryable failure. Where a kind's result is contract (an
 * InvitationEmailSent, a TicketForwarded), `perform` records it on the kind's own stream before it
 * answers, idempotently (a repeat after a crash finds it recorded and answers without sending).
 */
export interface EffectKind {
  readonly kind: string;
  readonly policy: RetryPolicy;
  perform(effect: PendingEffect, cause: RecordedEvent): Promise<EffectOutcome>;
  /** The policy's attempts are spent: the kind's own record of the failure, before the effect's. */
  gaveUp?(effect: PendingEffect, cause: RecordedEvent, reason: string): Promise<void>;
}

/** An effect a cause asks for: its kind and its target (an address, a channel); with the cause, its id. */
export interface EffectRequest {
  kind: string;
  target: string;
  projectId: string;
}

export interface OutboxDeps {
  events: EventStore;
  effects: () => Promise<ReadCollection<EffectDoc>>;
  clock: Clock;
  logger: pino.Logger;
  concurrency?: number;
  pollMs?: number;
}

/**
 * The one outbox of effects recorded on `effect-<id>` streams: effects are scheduled from
 * checkpointed subscriptions (`EffectScheduler`), and one durable timer over the `effects` model's
 * due times runs each on its own. A receiver that fails delays only its own effects, by the kind's
 * policy; what a crash interrupts is found due again after the restart.
 */
export class Outbox {
  private readonly kinds = new Map<string, EffectKind>();
  private readonly runner: EffectRunner;
  private readonly append: EventStore['append'];

  constructor(private readonly deps: OutboxDeps) {
    this.append = batchedAppend(deps.events);
    this.runner = new EffectRunner({
      clock: deps.clock,
      logger: deps.logger,
      label: 'outbox',
      concurrency: deps.concurrency ?? 32,
      pollMs: deps.pollMs,
      due: async (now) => (await (await deps.effects()).find({ filter: { due: true, dueAt: { $lte: now } }, sort: [{ field: 'dueAt', direction: 1 }], limit: 500, withTotal: false })).items.map((d) => d.id),
      run: (id) => this.attempt(id),
    });
  }

  register(kind: EffectKind): void {
    this.kinds.set(kind.kind, kind);
  }

  start(): void {
    this.runner.start();
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** The effects model's change feed: effects just written that are due now (a retry's). */
  observe(changes: Array<{ id: string; doc: EffectDoc | null }>): void {
    const now = this.deps.clock.now();
    for (const { id, doc } of changes) if (doc?.due && doc.dueAt && Date.parse(doc.dueAt) <= now) this.runner.enqueue(id);
  }

  /**
   * Records the effects a cause asks for (each under its derived id, its stream opened with
   * `no_stream`: a cause handled again schedules nothing twice) and runs them at once.
   */
  async schedule(cause: RecordedEvent, requests: EffectRequest[]): Promise<void> {
    const now = new Date(this.deps.clock.now()).toISOString();
    await Promise.all(
      requests.map(async (r) => {
        const effectId = effectIdFor(cause.id, r.kind, r.target);
        const decided = effectDecider.decide({ type: 'ScheduleEffect', effectId, ...r, causeEventId: cause.id, causePosition: cause.position, now }, effectDecider.initialState());
        const metadata = causedBy(cause, { projectId: r.projectId, actor: 'system:outbox' });
        try {
          await this.append(effectStream(effectId), decided.map((e) => toNewEvent(e, { metadata })), { expectedRevision: 'no_stream' });
        } catch (err) {
          if (!(err instanceof WrongExpectedRevisionError)) throw err;
          return; // scheduled before: the due-time index has it
        }
        this.runner.enqueue(effectId);
      }),
    );
  }

  /** One attempt: the effect's stream says whether it is due (the model may lag); the outcome is appended at the revision read. */
  private async attempt(effectId: string): Promise<void> {
    const stream = effectStream(effectId);
    const history = await this.deps.events.readStream(stream);
    const state = history.reduce((s, e) => effectDecider.evolve(s, { type: e.type, data: e.data } as EffectEvent), effectDecider.initialState());
    if (state.status !== 'pending' || (state.dueAt && Date.parse(state.dueAt) > this.deps.clock.now())) return;
    // A kind this process does not run (its channel is no longer configured) ends its effects, as an unconfigured channel lets causes pass.
    const kind = this.kinds.get(state.kind);
    const effect: PendingEffect = { ...state, effectId, attempt: state.attempts + 1 };
    const cause = kind ? await this.causeOf(state.causePosition) : null;
    let outcome: EffectOutcome;
    try {
      if (!kind) outcome = { ok: false, retryable: false, reason: `${state.kind} is not configured` };
      else outcome = cause ? await kind.perform(effect, cause) : { ok: false, retryable: false, reason: 'cause event no longer readable' };
    } catch (err) {
      outcome = { ok: false, retryable: true, reason: (err instanceof Error ? err.message : String(err)).slice(0, 500) };
    }
    const now = new Date(this.deps.clock.now()).toISOString();
    const decided = effectDecider.decide({ type: 'RecordOutcome', effectId, attempt: effect.attempt, outcome, policy: kind?.policy ?? { delaysMs: [] }, now }, state);
    const gaveUp = decided.find((e) => e.type === 'outbox.EffectFailedPermanently.v1');
    if (gaveUp && kind && cause && !outcome.ok && outcome.retryable) await kind.gaveUp?.(effect, cause, gaveUp.data.reason);
    const log = { effectId, kind: state.kind, target: state.target, attempt: effect.attempt };
    if (!outcome.ok) this.deps.logger.warn({ ...log, reason: outcome.reason, retryable: outcome.retryable }, 'outbox: effect attempt failed');
    try {
      await this.append(stream, decided.map((e) => toNewEvent(e, { metadata: { ...history[0].metadata, actor: 'system:outbox' } })), { expectedRevision: history[history.length - 1].revision });
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err; // recorded by another hand
    }
  }

  private async causeOf(position: number): Promise<RecordedEvent | null> {
    const [event] = await this.deps.events.readAll({ fromPosition: position - 1, maxCount: 1 });
    return event && event.position === position ? event : null;
  }
}

/**
 * A checkpointed subscription that turns causes into effects: it only records their schedule, so a
 * receiver that fails never holds up the batch (the outbox retries that effect alone).
 */
export class EffectScheduler implements SubscriptionHandler {
  readonly batchSize = 100;

  constructor(
    readonly name: string,
    private readonly outbox: Outbox,
    private readonly effectsOf: (e: RecordedEvent) => EffectRequest[],
  ) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    const asked = batch.map((e) => ({ e, requests: this.effectsOf(e) })).filter((x) => x.requests.length > 0);
    await Promise.all(asked.map(({ e, requests }) => this.outbox.schedule(e, requests)));
    return asked.length > 0;
  }
}
