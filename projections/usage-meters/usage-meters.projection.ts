import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { RunInterval } from '../../libs/domain/invoicing/usage';
import type { InstanceEvent } from '../../libs/domain/compute/instance.events';
import type { ServerEvent } from '../../libs/domain/servers/server.events';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/**
 * One compute resource's metered runs (DECISIONS 9/16): when it ran and at which hourly price, folded
 * from its own events. Costs are not stored: every figure (usage per day, upcoming charges, a closed
 * period) is the started hours of these runs in a window, so it can be recomputed from the events.
 */
export interface UsageMeterDoc extends ReadDoc {
  projectId: string;
  resourceType: 'instance' | 'server';
  name: string;
  plan: string;
  /** The plan's price per hour in USD cents as recorded when the resource was requested (0 when the plan had none). */
  hourlyPriceCents: number;
  runs: RunInterval[];
  running: boolean;
  /** When it first started running (null: never ran); a usage window ending before it skips the meter. */
  firstRunAt: string | null;
  createdAt: string;
}

const LISTS: ListShape[] = [{ query: 'usage of a project (GET /v1/billing/usage, month-end run)', equal: ['projectId'], residual: ['firstRunAt'], sortable: ['createdAt'] }];

const INSTANCE_EVENTS: InstanceEvent['type'][] = [
  'compute.InstanceRequested.v1',
  'compute.InstanceProvisioned.v1',
  'compute.InstanceStarted.v1',
  'compute.InstanceStopped.v1',
  'compute.InstanceTerminated.v1',
  'compute.InstanceOperationFailed.v1',
  'compute.InstanceStatusSynced.v1',
  'compute.InstanceUpdated.v1',
];
const SERVER_EVENTS: ServerEvent['type'][] = [
  'compute.ServerRequested.v1',
  'compute.ServerActivated.v1',
  'compute.ServerPoweredOff.v1',
  'compute.ServerTerminated.v1',
  'compute.ServerOperationFailed.v1',
  'compute.ServerMigrationRequested.v1',
];

function start(doc: UsageMeterDoc, at: string): UsageMeterDoc {
  if (doc.running) return doc;
  return { ...doc, running: true, firstRunAt: doc.firstRunAt ?? at, runs: [...doc.runs, { from: at, to: null, hourlyPriceCents: doc.hourlyPriceCents }] };
}
function stop(doc: UsageMeterDoc, at: string): UsageMeterDoc {
  if (!doc.running) return doc;
  const runs = doc.runs.slice();
  runs[runs.length - 1] = { ...runs[runs.length - 1], to: at };
  return { ...doc, running: false, runs };
}

/** Running: from provisioned (or started, or synced active) until stopped, terminated, failed or synced otherwise. */
export const usageMetersProjection: DocumentProjection<UsageMeterDoc> = {
  name: 'usage_meters',
  version: 1,
  eventTypes: [...INSTANCE_EVENTS, ...SERVER_EVENTS],
  creates: ['compute.InstanceRequested.v1', 'compute.ServerRequested.v1'],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => {
    const d = event.data as { instanceId?: string; serverId?: string };
    return d.instanceId ?? d.serverId ?? null;
  },
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as InstanceEvent | ServerEvent;
    const at = (recorded.data as { at?: string }).at ?? recorded.recordedAt;
    const next = (doc: UsageMeterDoc | null): UsageMeterDoc | null => doc && { ...doc, _position: recorded.position };
    switch (event.type) {
      case 'compute.InstanceRequested.v1': {
        const d = event.data;
        return { id: d.instanceId, _position: recorded.position, projectId: d.projectId, resourceType: 'instance', name: d.name, plan: d.plan.slug, hourlyPriceCents: d.hourlyPriceCents ?? 0, runs: [], running: false, firstRunAt: null, createdAt: d.requestedAt };
      }
      case 'compute.ServerRequested.v1': {
        const d = event.data;
        return { id: d.serverId, _position: recorded.position, projectId: d.projectId, resourceType: 'server', name: d.name, plan: d.plan.slug, hourlyPriceCents: d.hourlyPriceCents ?? 0, runs: [], running: false, firstRunAt: null, createdAt: d.requestedAt };
      }
      case 'compute.InstanceUpdated.v1':
        return next(current && event.data.name ? { ...current, name: event.data.name } : current);
      case 'compute.InstanceProvisioned.v1':
      case 'compute.InstanceStarted.v1':
      case 'compute.ServerActivated.v1':
        return next(current && start(current, at));
      case 'compute.InstanceStatusSynced.v1':
        return next(current && (event.data.to === 'active' ? start(current, at) : stop(current, at)));
      case 'compute.InstanceStopped.v1':
      case 'compute.InstanceTerminated.v1':
      case 'compute.InstanceOperationFailed.v1':
      case 'compute.ServerPoweredOff.v1':
      case 'compute.ServerTerminated.v1':
      case 'compute.ServerOperationFailed.v1':
        return next(current && stop(current, at));
      case 'compute.ServerMigrationRequested.v1': {
        // The new plan's price applies from the request on: the running stretch is cut there.
        if (!current) return null;
        const price = event.data.hourlyPriceCents ?? current.hourlyPriceCents;
        const repriced = { ...current, plan: event.data.plan.slug, hourlyPriceCents: price };
        return next(current.running ? start({ ...stop(repriced, event.data.requestedAt) }, event.data.requestedAt) : repriced);
      }
      default:
        return current;
    }
  },
};
