import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { z } from 'zod';
import { INSTANCE_EVENT_TYPES, type InstanceEvent, type InstanceSpecData } from '../../libs/domain/compute/instance.events';
import type { INSTANCE } from '../../libs/domain/compute/instance.fields';
import { INSTANCE_LIFECYCLE } from '../../libs/domain/compute/instance.decider';
import { lifecycleFields } from '../../libs/domain/shared/operations';
import { modeOfScope, type Mode } from '../../libs/domain/shared/scope';

/** The request's spec, the instance's declared fields (INSTANCE) as its jobs move them, and its timers. */
export type InstanceDoc = ReadDoc &
  InstanceSpecData &
  z.output<typeof INSTANCE.stored> & {
    /** The mode of its data scope (DECISIONS 21): what the admin analytics count by. */
    mode: Mode;
    rescueImage: string | null;
    /** When the system stops this instance for inactivity (active instances with autoStopMinutes only). */
    autoStopAt: string | null;
    /**
     * `autoStopAt !== null`: the auto-stop poller's equality key. FerretDB v1 pushes only equality down
     * to PostgreSQL, so a poll on `status: 'active'` decoded every active instance of every project each
     * tick (its cost grew with the fleet); on this key it decodes only the instances with a timer.
     */
    autoStopArmed: boolean;
  };

const plusMinutes = (iso: string, minutes: number | null) => (minutes && minutes > 0 ? new Date(Date.parse(iso) + minutes * 60_000).toISOString() : null);

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
export const INSTANCES_LIST: ListShape = { query: 'GET /v1/instances', equal: ['projectId'], residual: ['status', 'providerId', 'region'], sortable: ['name', 'status', 'createdAt', 'region'] };
export const INSTANCES_BY_STATUS_LIST: ListShape = { query: 'GET /v1/instances?status=, GET /v1/instances/all', equal: ['projectId', 'status'], residual: ['providerId', 'region'], sortable: ['name', 'status', 'createdAt', 'region'] };
const LISTS: ListShape[] = [
  INSTANCES_LIST,
  INSTANCES_BY_STATUS_LIST,
  { query: 'GET /v1/admin/analytics: counts by mode and status', equal: ['mode', 'status'] },
  { query: 'auto-stop poll (sagas/auto-stop)', equal: ['autoStopArmed'], residual: ['autoStopAt'], sorts: [[{ field: 'autoStopAt', direction: 1 }]] },
];

/** Serves the instance routes, the auto-stop due-time index and the live-status sync. */
export const instancesProjection: DocumentProjection<InstanceDoc> = {
  name: 'instances',
  version: 3,
  eventTypes: INSTANCE_EVENT_TYPES,
  creates: ['compute.InstanceRequested.v1'],
  // `status` is `$ne: 'terminated'` unless given: walked past, not a range (a MongoDB index cannot
  // order two ranges of status by another field); provider and region filters are checked while walking.
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts).
  indexes: indexesFor(LISTS),
  documentId: (e) => (e.data as { instanceId: string }).instanceId,
  evolve: (current, recorded) => {
    const next = evolveInstance(current, recorded);
    // evolveInstance returns a fresh document (or `current` itself, where the marker already holds).
    if (next) next.autoStopArmed = next.autoStopAt !== null;
    return next;
  },
};

function evolveInstance(current: InstanceDoc | null, recorded: RecordedEvent): InstanceDoc | null {
  const event = { type: recorded.type, data: recorded.data } as InstanceEvent;
  if (event.type === 'compute.InstanceRequested.v1') {
    const { instanceId, jobId, requestedAt, ...spec } = event.data;
    return {
      ...spec,
      id: instanceId,
      _position: recorded.position,
      mode: modeOfScope(spec.projectId),
      status: 'creating',
      jobId,
      externalId: null,
      ipv4: null,
      ipv6: null,
      sshUser: null,
      sshPort: null,
      errorMessage: null,
      rescueImage: null,
      autoStopAt: null,
      autoStopArmed: false,
      createdAt: requestedAt,
      updatedAt: requestedAt,
      deletedAt: null,
    };
  }
  if (!current) return null;
  const at = 'at' in event.data ? event.data.at : recorded.recordedAt;
  // Status, job and error message as every job-backed resource moves them.
  const base = { ...current, updatedAt: at, ...lifecycleFields(INSTANCE_LIFECYCLE, event) };
  switch (event.type) {
    case 'compute.InstanceActionRequested.v1':
      return {
        ...base,
        updatedAt: event.data.requestedAt,
        autoStopAt: null,
        rescueImage: event.data.action === 'rescue' ? (event.data.rescueImage ?? null) : event.data.action === 'reinstall' ? null : current.rescueImage,
      };
    case 'compute.InstanceProvisioningStarted.v1':
    case 'compute.InstanceRebooting.v1':
    case 'compute.InstanceOperationRetried.v1':
      return base;
    case 'compute.InstanceProvisioned.v1':
      return {
        ...base,
        externalId: event.data.externalId,
        hostname: event.data.hostname,
        ipv4: event.data.ipv4,
        ipv6: event.data.ipv6,
        sshUser: event.data.sshUser,
        sshPort: event.data.sshPort,
        autoStopAt: plusMinutes(event.data.at, current.autoStopMinutes),
      };
    case 'compute.InstanceStopped.v1':
    case 'compute.InstanceOperationFailed.v1':
      return { ...base, autoStopAt: null };
    case 'compute.InstanceStarted.v1':
      return { ...base, autoStopAt: plusMinutes(event.data.at, current.autoStopMinutes) };
    case 'compute.InstanceTerminated.v1':
      return { ...base, deletedAt: event.data.at, autoStopAt: null };
    case 'compute.InstanceUpdated.v1':
      return {
        ...base,
        ...(event.data.name ? { name: event.data.name } : {}),
        ...(event.data.tags ? { tags: event.data.tags } : {}),
        autoStopAt: current.status === 'active' ? plusMinutes(event.data.at, current.autoStopMinutes) : current.autoStopAt,
      };
    case 'compute.InstanceStatusSynced.v1': {
      const to = event.data.to;
      return {
        ...base,
        status: to,
        autoStopAt: to === 'active' ? plusMinutes(event.data.at, current.autoStopMinutes) : null,
        errorMessage: to === 'error' ? 'The provider reports this instance in error' : null,
        ...(to === 'terminated' ? { deletedAt: event.data.at } : {}),
      };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

