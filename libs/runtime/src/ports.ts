import type pino from 'pino';
import type { AppConfig } from '../../config/src/config';
import type { EventStore } from '../../eventstore/src/event-store.port';
import type { CredentialVault } from '../../providers/src/credential-vault';
import type { ReadCollection, ReadDoc } from '../../readstore/src/read-store.port';
import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import type { Clock } from './clock';
import type { Consistency } from './consistency';
import type { DriverRegistry } from './driver-registry';
import type { Mailer } from './mailer';
import type { Registry } from './registry';

/** The read models a use case queries, by their projection (never the engine that builds them). */
export interface ReadModels {
  collection<D extends ReadDoc>(p: DocumentProjection<D>): Promise<ReadCollection<D>>;
  /** This process's live runner of a model, to hear of its changes (caches); none in an API-only process. */
  liveRunner(name: string): { onChange(listener: (position: number) => void): void } | undefined;
}

/**
 * What a use case (a command or query handler) may use of the runtime: its stores, clock, drivers,
 * vault and read-your-writes; never the runtime's lifecycle, relays or process managers. Each handler
 * takes only the members it uses (`PortsOf<'events' | 'now'>`), so its dependencies are its type.
 */
export interface Ports {
  readonly config: AppConfig;
  readonly logger: pino.Logger;
  readonly events: EventStore;
  readonly projections: ReadModels;
  readonly consistency: Consistency;
  readonly drivers: DriverRegistry;
  readonly vault: CredentialVault;
  readonly clock: Clock;
  readonly mailer: Mailer;
  /** What the contexts registered: job-backed resources, event names (for the use cases that list or check them). */
  readonly registry: Pick<Registry, 'jobResources' | 'eventNames'>;
  /** The clock's time as an ISO string: the `now` handlers pass into commands. */
  now(): string;
  waitForProjections(position: number | null, names: string[]): Promise<boolean>;
  readBack<D extends ReadDoc>(projection: DocumentProjection<D>, stream: string, id: string, position: number | null): Promise<D | null>;
}

/** The ports a use case names, and nothing else. */
export type PortsOf<K extends keyof Ports> = Pick<Ports, K>;
