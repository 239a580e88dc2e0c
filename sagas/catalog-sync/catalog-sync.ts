import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { handleCommand, toNewEvent, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { WrongExpectedRevisionError, type EventStore } from '../../libs/eventstore/src/event-store.port';
import { catalogDecider } from '../../libs/domain/catalog/catalog.decider';
import { catalogStream, type CatalogSynced } from '../../libs/domain/catalog/events';
import { PROVIDER_KINDS, type ProviderKind } from '../../libs/domain/providers/events';
import { ProviderError, type ProviderDriver } from '../../libs/providers/src/driver.port';
import type { CatalogSnapshot } from '../../libs/providers/src/catalog.types';
import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import { catalogProjection } from '../../projections/catalog/catalog.projection';
import type { JobOperationHandler, JobToRun } from '../../libs/runtime/src/job-ports';

/** What the catalog process needs of the runtime: the log, a clock and read-your-writes on the catalog model. */
export interface CatalogSyncDeps {
  events: EventStore;
  now: () => string;
  waitForProjections(position: number | null, names: string[]): Promise<boolean>;
}

export const snapshotHash = (s: CatalogSnapshot): string => createHash('sha256').update(JSON.stringify(s)).digest('hex');

const systemContext = (what: string): CommandContext => ({ metadata: { actor: 'system:catalog', requestId: what, correlationId: what } });

/** Appends the seeded catalog of every provider kind once (a second start finds the streams and does nothing). */
export async function seedCatalog(deps: CatalogSyncDeps, drivers: Partial<Record<ProviderKind, ProviderDriver>> = {}): Promise<void> {
  let last: number | null = null;
  for (const kind of PROVIDER_KINDS) {
    const driver = drivers[kind] ?? SimulatorDriver.instant(kind);
    if (!driver.fetchCatalog) continue;
    const snapshot = await driver.fetchCatalog();
    const event: CatalogSynced = { type: 'catalog.CatalogSynced.v1', data: { kind, snapshotHash: snapshotHash(snapshot), syncedAt: deps.now(), snapshot } };
    try {
      const r = await deps.events.append(catalogStream(kind), [toNewEvent(event, systemContext(`seed-${uuidv7()}`))], { expectedRevision: 'no_stream' });
      last = r.position;
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
    }
  }
  await deps.waitForProjections(last, [catalogProjection.name]);
}

/** Fetches the offer through the driver and records it when it changed. Returns the position (null: unchanged). */
export async function syncCatalog(deps: CatalogSyncDeps, kind: ProviderKind, ctx: CommandContext, driver: ProviderDriver = SimulatorDriver.instant(kind)): Promise<{ changed: boolean; position: number | null }> {
  if (!driver.fetchCatalog) return { changed: false, position: null };
  const snapshot = await driver.fetchCatalog();
  const r = await handleCommand(deps.events, catalogStream(kind), catalogDecider, { type: 'SyncCatalog', kind, snapshot, snapshotHash: snapshotHash(snapshot), now: deps.now() }, ctx);
  await deps.waitForProjections(r.position, [catalogProjection.name]);
  return { changed: r.position !== null, position: r.position };
}

/** The catalog side of a `catalog.sync` job: fetch through the driver, record CatalogSynced when it changed. */
export class CatalogSyncOperation implements JobOperationHandler {
  constructor(private readonly deps: CatalogSyncDeps) {}

  async execute(job: JobToRun, _attempt: number, _token: string, ctx: CommandContext): Promise<Record<string, unknown>> {
    const kind = job.resourceId as ProviderKind;
    if (!PROVIDER_KINDS.includes(kind)) throw new ProviderError(`Unknown provider kind ${kind}`, false);
    const result = await syncCatalog(this.deps, kind, ctx);
    return { changed: result.changed, position: result.position };
  }

  async onFailed(): Promise<void> {
    /* nothing to undo: the previous catalog stays in force */
  }
}
