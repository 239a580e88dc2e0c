import type pino from 'pino';
import type { AppConfig } from '../../config/src/config';
import type { EventStore } from '../../eventstore/src/event-store.port';
import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import type { ProjectionEngine } from '../../subscriptions/src/projection-engine';
import type { SubscriptionHandler } from '../../subscriptions/src/subscription-runner';
import type { AnyJobBackedResource, JobOperationHandler } from './job-ports';
import type { Clock } from './clock';
import type { Consistency } from './consistency';
import type { DriverRegistry } from './driver-registry';
import type { Mailer } from './mailer';
import type { Outbox } from './outbox/outbox';
import type { EffectDoc } from './outbox/effect-doc';
import type { CredentialVault } from '../../providers/src/credential-vault';
import type { EventNameCatalogue } from '../../domain/notifications/event-names';

/** What a context's process managers, job handlers and timers may use of the runtime. */
export interface RuntimeServices {
  config: AppConfig;
  logger: pino.Logger;
  events: EventStore;
  projections: ProjectionEngine;
  consistency: Consistency;
  drivers: DriverRegistry;
  clock: Clock;
  /** Outbound mail (SMTP or the log); process managers send from the event stream. */
  mailer: Mailer;
  /** The one outbox of effects on the outside world (mail, forwards): kinds register, schedulers schedule, its timer runs them. */
  outbox: Outbox;
  /** Credentials encrypted at rest (events carry only references). */
  vault: CredentialVault;
  /** Every registered context's job-backed resources (the job dispatcher serves them all). */
  jobResources: readonly AnyJobBackedResource[];
  /** Every registered context's job handlers, by the jobs' `resourceType` (complete before any timer is built). */
  jobHandlers: Readonly<Record<string, JobOperationHandler>>;
  /** The published event names (`instance.created`, …) of every registered context's event types. */
  eventNames: EventNameCatalogue;
}

/** A poller over a due-time index of a read model (job attempts, auto-stop). */
export interface Timer {
  start(): void;
  stop(): Promise<void>;
}

/**
 * A bounded context as the runtime sees it: everything that runs from the log. Its HTTP routes are
 * the API app's business (apps/api/src/routes.ts), so the runtime never depends on HTTP.
 */
export interface ContextModule {
  name: string;
  /** Read models this context serves. */
  projections: DocumentProjection<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The outbox's due-time index (its effects and their attempts), which the runtime's outbox runs on: exactly one module registers it. */
  outboxIndex?: DocumentProjection<EffectDoc>;
  /** Process managers fed by checkpointed subscriptions. */
  processManagers?: (rt: RuntimeServices) => SubscriptionHandler[];
  /** Job-backed resources (instances, volumes, …): the one job process runs their operations. */
  jobResources?: readonly AnyJobBackedResource[];
  /** Other job handlers, by the jobs' `resourceType` (e.g. catalog sync). */
  jobHandlers?: (rt: RuntimeServices) => Record<string, JobOperationHandler>;
  /** Durable timers (pollers over due-time indexes of this context's read models, the job executor). */
  timers?: (rt: RuntimeServices) => Timer[];
  /** The event types this context records, its topic's content. */
  eventTypes: readonly string[];
  /** Those of them notification endpoints cannot subscribe to (its own bookkeeping); the rest are published by name. */
  unpublished?: readonly string[];
}
