import type pino from 'pino';
import { v5 as uuidv5 } from 'uuid';
import type { EventMetadata, EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { WrongExpectedRevisionError } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, toNewEvent, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream, type RecordedOf } from '../../libs/eventstore/src/aggregate-stream';
import { deliveryDecider, webhookIdOf, type DeliveryState } from '../../libs/domain/notifications/delivery.decider';
import { dueForDisable, endpointDecider } from '../../libs/domain/notifications/endpoint.decider';
import { deliveryStream, endpointStream, notificationStream, type DeliveryEvent, type DeliverySchedule } from '../../libs/domain/notifications/events';
import { notificationDecider } from '../../libs/domain/notifications/notification.decider';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { Clock } from '../../libs/runtime/src/clock';
import type { Timer } from '../../libs/runtime/src/context-module';
import { batchedAppend } from '../../libs/runtime/src/outbox/batched-append';
import { EffectRunner } from '../../libs/runtime/src/outbox/effect-runner';
import type { CredentialVault } from '../../libs/providers/src/credential-vault';
import type { DeliveryDoc } from '../../projections/notification-deliveries/notification-deliveries.projection';
import type { EndpointDoc } from '../../projections/notification-endpoints/notification-endpoints.projection';
import type { EndpointSender, SendResult } from '../../libs/runtime/src/endpoint-sender';
import { deliveryBody } from './payload';

const NOTICES = 'a3c5e0f2-4b7d-5e19-8c6a-2f0d9b1e7a44';

/** A delivery the fan-out derived and has recorded nothing for: its first attempt records it (or, if slow, its schedule does). */
export interface NewDelivery {
  deliveryId: string;
  endpointId: string;
  projectId: string;
  schedule: DeliverySchedule;
  /** The metadata of its events (caused by the delivered event, in its mode). */
  metadata: CommandContext['metadata'];
  /**
   * False when its stream cannot exist: its event came after the log's head when this process's
   * fan-out started, and the fan-out has not handed it over before (so its stream is not read).
   */
  mayExist: boolean;
}

/**
 * How long a new delivery's first attempt may run before its schedule is appended on its own (the
 * fan-out waits until every delivery of its batch is in the log; a receiver that answers slowly must
 * not hold it up to the 10 s timeout).
 */
export const FIRST_RECORD_WAIT_MS = 2_000;

export interface DelivererDeps {
  events: EventStore;
  deliveries: () => Promise<ReadCollection<DeliveryDoc>>;
  endpoints: () => Promise<ReadCollection<EndpointDoc>>;
  vault: CredentialVault;
  sender: EndpointSender;
  clock: Clock;
  logger: pino.Logger;
  /** Attempts in flight at once. */
  concurrency: number;
  pollMs?: number;
  firstRecordWaitMs?: number;
}

/**
 * Webhook and email deliveries on the outbox's runner (`EffectRunner`: poll, change feed, bounded
 * concurrency, each delivery on its own) over their own due-time index, the `dueAt` of the deliveries
 * model (projected from the events, so a restart re-arms every pending delivery); their streams and
 * events stay the notifications context's, since the deliveries routes and re-send serve them. New
 * deliveries are handed over by the fan-out of this process (`deliverNew`) and re-armed ones come
 * from the projector's change feed (`observe`), so an attempt waits neither for the next poll nor for
 * the model (FerretDB lags under a fan-out).
 *
 * An attempt reads the delivery's stream first (the model may lag): only the attempt the delivery
 * waits for, when due, is sent. Its outcome is recorded with the stream's expected revision. A crash
 * between a receiver's 2xx and that record sends the message once more, with the same `webhook-id`
 * (receivers dedupe on it); a recorded success is never sent again.
 */
export class Deliverer implements Timer {
  private readonly runner: EffectRunner;
  private readonly append: EventStore['append'];
  /** New deliveries (from `deliverNew`) waiting or in flight, with their promise of being in the log. */
  private readonly fresh = new Map<string, NewDelivery & { recorded: Deferred }>();
  private readonly secrets = new Map<string, string>();
  private readonly recent = new Map<number, RecordedEvent>();

  constructor(private readonly deps: DelivererDeps) {
    this.append = batchedAppend(deps.events);
    this.runner = new EffectRunner({
      clock: deps.clock,
      logger: deps.logger,
      label: 'webhook deliveries',
      concurrency: deps.concurrency,
      pollMs: deps.pollMs,
      due: async (now) => (await (await deps.deliveries()).find({ filter: { due: true, dueAt: { $lte: now } }, sort: [{ field: 'dueAt', direction: 1 }], limit: 1000, withTotal: false })).items.map((d) => d.id),
      run: (id) => this.run(id),
      // New deliveries not started are not in the log: the fan-out's batch fails and is handled again after a restart.
      onDropped: (ids) => {
        for (const id of ids) this.fresh.get(id)?.recorded.reject(new Error('deliverer stopped'));
      },
    });
  }

  start(): void {
    this.runner.start();
  }

  async stop(): Promise<void> {
    await this.runner.stop();
    this.deps.sender.close();
  }

  /** The deliveries model's change feed: documents just written that are due now. */
  observe(changes: Array<{ id: string; doc: DeliveryDoc | null }>): void {
    const now = this.deps.clock.now();
    for (const { id, doc } of changes) if (doc?.due && doc.dueAt && Date.parse(doc.dueAt) <= now) this.runner.enqueue(id);
  }

  /**
   * Deliveries the fan-out derived, with nothing in the log yet: each first attempt is sent, then
   * recorded as one event that carries the schedule (or, when it takes longer than
   * FIRST_RECORD_WAIT_MS, the schedule is appended first and the attempt after it). Resolves once
   * every one is in the log; rejects if one could not be recorded (the fan-out handles its batch
   * again: a delivery already recorded is found in the log and not sent again).
   */
  deliverNew(deliveries: NewDelivery[]): Promise<void> {
    return Promise.all(
      deliveries.map((d) => {
        const known = this.fresh.get(d.deliveryId);
        if (known) return known.recorded.promise;
        if (this.runner.isStopped) return Promise.reject(new Error('deliverer stopped'));
        // In flight from the poll or the change feed: its stream exists, so it is recorded.
        if (this.runner.has(d.deliveryId)) return Promise.resolve();
        const recorded = deferred();
        this.fresh.set(d.deliveryId, { ...d, recorded });
        recorded.promise.catch(() => undefined);
        this.runner.enqueue(d.deliveryId);
        return recorded.promise;
      }),
    ).then(() => undefined);
  }

  private async run(id: string): Promise<void> {
    const fresh = this.fresh.get(id);
    try {
      await (fresh ? this.firstAttempt(fresh) : this.attempt(id));
      fresh?.recorded.resolve();
    } catch (err) {
      fresh?.recorded.reject(err);
      throw err;
    } finally {
      this.fresh.delete(id);
    }
  }

  private async attempt(deliveryId: string): Promise<void> {
    // The delivery, and the mode of its schedule (the stream's first event).
    const { state: { delivery: state, mode }, revision } = await aggregateStream(this.deps.events, deliveryStream(deliveryId), {
      initialState: () => ({ delivery: deliveryDecider.initialState(), mode: undefined as EventMetadata['mode'] }),
      evolve: (s, e: RecordedOf<DeliveryEvent>) => ({ delivery: deliveryDecider.evolve(s.delivery, e), mode: e.revision === 0 ? e.metadata.mode : s.mode }),
    });
    const nowMs = this.deps.clock.now();
    if (state.status !== 'pending' || revision === 'no_stream' || (state.dueAt && Date.parse(state.dueAt) > nowMs)) return;
    const { endpoint, result } = await this.send(deliveryId, state);
    const at = new Date(this.deps.clock.now()).toISOString();
    // Caused by the event delivered; in the mode of its schedule (which the fan-out took from that event).
    const ctx = { metadata: causedBy({ id: state.eventId, metadata: { correlationId: state.eventId, mode } }, { projectId: state.projectId, actor: 'system:notifications' }) };
    if (!(await this.record(deliveryId, state, revision, result, at, ctx))) return;
    if (!result.success && endpoint?.enabled) await this.disableIfFailingTooLong(endpoint, state, at);
  }

  /**
   * A new delivery's first attempt. The stream is read first when it may exist: a delivery handed
   * over again (the fan-out's batch after a crash or a failed batch) that is in the log already takes
   * the ordinary path, so a recorded success is never sent again. Otherwise the attempt is sent and recorded as one event carrying
   * the schedule (`no_stream`). If it has not come back within FIRST_RECORD_WAIT_MS, the schedule is
   * appended alone (the delivery is then in the log, the fan-out's batch need not wait for the
   * receiver) and the outcome follows it as on the ordinary path.
   */
  private async firstAttempt(d: NewDelivery & { recorded: Deferred }): Promise<void> {
    const stream = deliveryStream(d.deliveryId);
    if (d.mayExist && (await this.deps.events.readStream(stream)).length > 0) {
      d.recorded.resolve();
      return this.attempt(d.deliveryId);
    }
    const state = deliveryDecider.evolve(deliveryDecider.initialState(), { type: 'notifications.DeliveryScheduled.v1', data: { deliveryId: d.deliveryId, endpointId: d.endpointId, projectId: d.projectId, ...d.schedule } });
    if (state.status !== 'pending') return;
    const ctx = { metadata: d.metadata };
    let scheduling = null as Promise<boolean> | null;
    const slow = setTimeout(() => {
      scheduling = this.appendSchedule(d);
      scheduling.then(() => d.recorded.resolve(), (err) => d.recorded.reject(err));
    }, this.deps.firstRecordWaitMs ?? FIRST_RECORD_WAIT_MS);
    let sent: Awaited<ReturnType<Deliverer['send']>>;
    try {
      sent = await this.send(d.deliveryId, state);
    } finally {
      clearTimeout(slow);
    }
    const at = new Date(this.deps.clock.now()).toISOString();
    if (scheduling) {
      if (!(await scheduling)) {
        // Another hand opened the stream: record this attempt only if the delivery still waits for it.
        const { state: now, revision } = await aggregateStream(this.deps.events, stream, deliveryDecider);
        if (now.status !== 'pending' || now.attempts !== 0 || revision === 'no_stream' || !(await this.record(d.deliveryId, now, revision, sent.result, at, ctx))) return;
      } else if (!(await this.record(d.deliveryId, state, 0, sent.result, at, ctx))) return;
    } else {
      const { success, statusCode, error, durationMs, final } = sent.result;
      const decided = deliveryDecider.decide({ type: 'RecordFirstAttempt', deliveryId: d.deliveryId, endpointId: d.endpointId, projectId: d.projectId, schedule: d.schedule, outcome: { success, final, statusCode, error, durationMs, at } }, deliveryDecider.initialState());
      try {
        await this.append(stream, decided.map((e) => toNewEvent(e, ctx)), { expectedRevision: 'no_stream' });
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        return; // recorded by another hand: the log has the delivery
      }
      d.recorded.resolve();
    }
    if (!sent.result.success && sent.endpoint?.enabled) await this.disableIfFailingTooLong(sent.endpoint, state, at);
  }

  /** A slow first attempt's schedule, appended alone; false: the stream was opened by another hand (the delivery is in the log). */
  private async appendSchedule(d: NewDelivery): Promise<boolean> {
    const decided = deliveryDecider.decide({ type: 'ScheduleDelivery', deliveryId: d.deliveryId, endpointId: d.endpointId, projectId: d.projectId, ...d.schedule, now: d.schedule.scheduledAt }, deliveryDecider.initialState());
    try {
      await this.append(deliveryStream(d.deliveryId), decided.map((e) => toNewEvent(e, { metadata: d.metadata })), { expectedRevision: 'no_stream' });
      return true;
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return false;
      throw err;
    }
  }

  /** Sends the attempt the delivery waits for (or fails it without a request: endpoint gone or disabled, event unreadable). */
  private async send(deliveryId: string, state: Extract<DeliveryState, { endpointId: string }>): Promise<{ endpoint: EndpointDoc | null; result: SendResult & { final?: boolean } }> {
    const endpoint = await (await this.deps.endpoints()).get(state.endpointId);
    if (!endpoint || !endpoint.enabled) return { endpoint, result: { success: false, final: true, statusCode: null, error: endpoint ? 'endpoint disabled' : 'endpoint deleted', durationMs: 0 } };
    const event = await this.sourceEvent(state.eventPosition);
    const secret = endpoint.secretRef ? await this.secret(endpoint.secretRef) : null;
    if (!event) return { endpoint, result: { success: false, final: true, statusCode: null, error: 'event no longer readable', durationMs: 0 } };
    return { endpoint, result: await this.deps.sender.send({ type: endpoint.type, url: endpoint.url, email: endpoint.email, secret }, { webhookId: webhookIdOf(deliveryId), name: state.eventName, body: deliveryBody(event, state.eventName) }) };
  }

  /**
   * Records the outcome at the revision the attempt was decided on (the stream was just read): a
   * concurrent record of the same attempt loses the race and changes nothing (false).
   */
  private async record(deliveryId: string, state: Extract<DeliveryState, { endpointId: string }>, revision: number, result: SendResult & { final?: boolean }, at: string, ctx: CommandContext): Promise<boolean> {
    const { success, statusCode, error, durationMs, final } = result;
    const decided = deliveryDecider.decide({ type: 'RecordAttempt', deliveryId, attempt: state.attempts + 1, outcome: { success, final, statusCode, error, durationMs, at } }, state);
    try {
      await this.append(deliveryStream(deliveryId), decided.map((e) => toNewEvent(e, ctx)), { expectedRevision: revision });
      return true;
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return false;
      throw err;
    }
  }

  /** DECISIONS 17: an endpoint whose deliveries have failed for 5 days is disabled, with a notification saying so. */
  private async disableIfFailingTooLong(endpoint: EndpointDoc, state: Extract<DeliveryState, { endpointId: string }>, at: string): Promise<void> {
    if (!dueForDisable(endpoint.failingSince ?? at, at)) return;
    const ctx = { metadata: { projectId: endpoint.projectId, actor: 'system:notifications', causationId: state.eventId, correlationId: state.eventId } };
    const target = endpoint.type === 'webhook' ? endpoint.url : endpoint.email;
    const fields = {
      title: 'Notification endpoint disabled',
      message: `Endpoint ${endpoint.id} (${target}) was disabled: its deliveries have failed since ${endpoint.failingSince ?? at}, for 5 days without a success. Create a new endpoint once the receiver is fixed.`,
      type: 'error' as const,
    };
    // The notice first, under an id derived from the endpoint: a crash before the disable repeats neither.
    const notificationId = uuidv5(`${endpoint.id}/auto-disabled`, NOTICES);
    await handleCommand(this.deps.events, notificationStream(notificationId), notificationDecider, { type: 'CreateNotification', notificationId, projectId: endpoint.projectId, fields, now: at }, ctx);
    await handleCommand(this.deps.events, endpointStream(endpoint.id), endpointDecider, { type: 'DisableEndpoint', endpointId: endpoint.id, projectId: endpoint.projectId, reason: `deliveries failing since ${endpoint.failingSince ?? at}`, now: at }, ctx);
  }

  private async secret(ref: string): Promise<string | null> {
    const known = this.secrets.get(ref);
    if (known) return known;
    const found = (await this.deps.vault.get(ref))?.secret ?? null;
    if (found) this.secrets.set(ref, found);
    return found;
  }

  /** The delivery's event (a fan-out's deliveries share one: the last few are kept). */
  private async sourceEvent(position: number): Promise<RecordedEvent | null> {
    const kept = this.recent.get(position);
    if (kept) return kept;
    const [event] = await this.deps.events.readAll({ fromPosition: position - 1, maxCount: 1 });
    if (!event || event.position !== position) return null;
    this.recent.set(position, event);
    if (this.recent.size > 256) this.recent.delete(this.recent.keys().next().value!);
    return event;
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
