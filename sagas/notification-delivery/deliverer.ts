import type pino from 'pino';
import { v5 as uuidv5 } from 'uuid';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { WrongExpectedRevisionError } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, toNewEvent } from '../../libs/eventstore/src/handle-command';
import { deliveryDecider, webhookIdOf, type DeliveryState } from '../../libs/domain/notifications/delivery.decider';
import { dueForDisable, endpointDecider } from '../../libs/domain/notifications/endpoint.decider';
import { deliveryStream, endpointStream, notificationStream } from '../../libs/domain/notifications/events';
import { notificationDecider } from '../../libs/domain/notifications/notification.decider';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { Clock } from '../../libs/runtime/src/clock';
import type { Timer } from '../../libs/runtime/src/context-module';
import type { CredentialVault } from '../../libs/providers/src/credential-vault';
import type { DeliveryDoc } from '../../projections/notification-deliveries/notification-deliveries.projection';
import type { EndpointDoc } from '../../projections/notification-endpoints/notification-endpoints.projection';
import type { EndpointSender, SendResult } from './endpoint-sender';
import { deliveryBody } from './payload';

const NOTICES = 'a3c5e0f2-4b7d-5e19-8c6a-2f0d9b1e7a44';

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
}

/**
 * The durable timer of deliveries: the `dueAt` of the deliveries model (projected from the events,
 * so a restart re-arms every pending delivery). New deliveries are also handed over by the fan-out
 * of this process (`take`) and re-armed ones come from the projector's change feed (`observe`), so
 * an attempt waits neither for the next poll nor for the model (FerretDB lags under a fan-out).
 *
 * An attempt reads the delivery's stream first (the model may lag): only the attempt the delivery
 * waits for, when due, is sent. Its outcome is recorded with the stream's expected revision. A crash
 * between a receiver's 2xx and that record sends the message once more, with the same `webhook-id`
 * (receivers dedupe on it); a recorded success is never sent again.
 */
export class Deliverer implements Timer {
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  private polling = false;
  private pollAgain = false;
  private readonly inFlight = new Set<string>();
  private readonly queue: string[] = [];
  private running = 0;
  private readonly secrets = new Map<string, string>();
  private readonly recent = new Map<number, RecordedEvent>();
  private idle: Array<() => void> = [];

  constructor(private readonly deps: DelivererDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.deps.pollMs ?? 1000);
    this.timer.unref?.();
    this.unsubscribe = this.deps.clock.onAdvance(() => void this.poll());
    void this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    this.queue.length = 0;
    while (this.running > 0 || this.polling) await new Promise<void>((r) => this.idle.push(r));
    this.deps.sender.close();
  }

  /** The deliveries model's change feed: documents just written that are due now. */
  observe(changes: Array<{ id: string; doc: DeliveryDoc | null }>): void {
    const now = this.deps.clock.now();
    for (const { id, doc } of changes) if (doc?.due && doc.dueAt && Date.parse(doc.dueAt) <= now) this.enqueue(id);
  }

  /** Deliveries just scheduled (the fan-out's hand-off): each attempt reads its stream, so the model need not have them yet. */
  take(deliveryIds: string[]): void {
    for (const id of deliveryIds) this.enqueue(id);
  }

  private enqueue(id: string): void {
    if (this.stopped || this.inFlight.has(id)) return;
    this.inFlight.add(id);
    this.queue.push(id);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.deps.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.running++;
      void this.attempt(id)
        .catch((err) => this.deps.logger.warn({ err: String(err), deliveryId: id }, 'delivery attempt failed to run; retrying on the next poll'))
        .finally(() => {
          this.running--;
          this.inFlight.delete(id);
          this.pump();
          this.settle();
        });
    }
  }

  private settle(): void {
    if (this.running > 0 || this.polling) return;
    const waiting = this.idle;
    this.idle = [];
    for (const w of waiting) w();
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    try {
      const due = await (await this.deps.deliveries()).find({ filter: { due: true, dueAt: { $lte: new Date(this.deps.clock.now()).toISOString() } }, sort: [{ field: 'dueAt', direction: 1 }], limit: 1000, withTotal: false });
      for (const doc of due.items) this.enqueue(doc.id);
    } catch (err) {
      this.deps.logger.warn({ err: String(err) }, 'delivery poll failed');
    } finally {
      this.polling = false;
      this.settle();
    }
    if (this.pollAgain) {
      this.pollAgain = false;
      await this.poll();
    }
  }

  private async attempt(deliveryId: string): Promise<void> {
    const history = await this.deps.events.readStream(deliveryStream(deliveryId));
    const state = history.reduce((s, e) => deliveryDecider.evolve(s, e as never), deliveryDecider.initialState());
    const nowMs = this.deps.clock.now();
    if (state.status !== 'pending' || (state.dueAt && Date.parse(state.dueAt) > nowMs)) return;
    const endpoint = await (await this.deps.endpoints()).get(state.endpointId);
    let result: SendResult & { final?: boolean };
    if (!endpoint || !endpoint.enabled) {
      result = { success: false, final: true, statusCode: null, error: endpoint ? 'endpoint disabled' : 'endpoint deleted', durationMs: 0 };
    } else {
      const event = await this.sourceEvent(state.eventPosition);
      const secret = endpoint.secretRef ? await this.secret(endpoint.secretRef) : null;
      if (!event) result = { success: false, final: true, statusCode: null, error: 'event no longer readable', durationMs: 0 };
      else result = await this.deps.sender.send({ type: endpoint.type, url: endpoint.url, email: endpoint.email, secret }, { webhookId: webhookIdOf(deliveryId), name: state.eventName, body: deliveryBody(event, state.eventName) });
    }
    const at = new Date(this.deps.clock.now()).toISOString();
    // Caused by the event delivered; in the mode of its schedule (which the fan-out took from that event).
    const ctx = { metadata: causedBy({ id: state.eventId, metadata: { correlationId: state.eventId, mode: history[0]?.metadata?.mode } }, { projectId: state.projectId, actor: 'system:notifications' }) };
    const { success, statusCode, error, durationMs, final } = result;
    // Recorded at the revision the attempt was decided on (the stream was just read): a concurrent
    // record of the same attempt loses the race and changes nothing.
    const decided = deliveryDecider.decide({ type: 'RecordAttempt', deliveryId, attempt: state.attempts + 1, outcome: { success, final, statusCode, error, durationMs, at } }, state);
    try {
      await this.deps.events.append(deliveryStream(deliveryId), decided.map((e) => toNewEvent(e, ctx)), { expectedRevision: history[history.length - 1].revision });
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return;
      throw err;
    }
    if (!success && endpoint?.enabled) await this.disableIfFailingTooLong(endpoint, state, at);
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
