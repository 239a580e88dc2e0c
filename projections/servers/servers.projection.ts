import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { z } from 'zod';
import { SERVER_EVENT_TYPES, type ServerEvent, type ServerSpecData } from '../../libs/domain/servers/server.events';
import type { SERVER } from '../../libs/domain/servers/server.fields';
import { SERVER_LIFECYCLE } from '../../libs/domain/servers/server.decider';
import { lifecycleFields } from '../../libs/domain/shared/operations';
import { modeOfScope, type Mode } from '../../libs/domain/shared/scope';

/** The request's spec, and the server's declared fields (SERVER) as its jobs move them. */
export type ServerDoc = ReadDoc &
  ServerSpecData &
  z.output<typeof SERVER.stored> & {
    /** The mode of its data scope (DECISIONS 21): what the admin analytics count by. */
    mode: Mode;
    externalId: string | null;
  };

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
export const SERVERS_LIST: ListShape = { query: 'GET /v1/servers', equal: ['projectId'], residual: ['status', 'site', 'role'], sortable: ['createdAt', 'hostname', 'status', 'site'] };
export const SERVERS_BY_STATUS_LIST: ListShape = { query: 'GET /v1/servers?status=', equal: ['projectId', 'status'], residual: ['site', 'role'], sortable: ['createdAt', 'hostname', 'status', 'site'] };
const LISTS: ListShape[] = [
  SERVERS_LIST,
  SERVERS_BY_STATUS_LIST,
  { query: 'GET /v1/admin/analytics: counts by mode and status', equal: ['mode', 'status'] },
];

/** Serves the server routes (spec 4.2). */
export const serversProjection: DocumentProjection<ServerDoc> = {
  name: 'servers',
  version: 2,
  eventTypes: SERVER_EVENT_TYPES,
  // `status` is `$ne: 'terminated'` unless given (walked past); site and role are checked while walking.
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts).
  indexes: indexesFor(LISTS),
  documentId: (e) => (e.data as { serverId: string }).serverId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as ServerEvent;
    if (event.type === 'compute.ServerRequested.v1') {
      const { serverId, jobId, requestedAt, restoredFromBackup, ...spec } = event.data;
      return {
        ...spec,
        id: serverId,
        _position: recorded.position,
        mode: modeOfScope(spec.projectId),
        status: 'creating',
        locked: false,
        jobId,
        externalId: null,
        ipv4: null,
        errorMessage: null,
        restoredFromBackup,
        createdAt: requestedAt,
        updatedAt: requestedAt,
        deletedAt: null,
      };
    }
    if (!current) return null;
    // Status, job and error message as every job-backed resource moves them.
    const base = { ...current, ...lifecycleFields(SERVER_LIFECYCLE, event), updatedAt: 'requestedAt' in event.data ? event.data.requestedAt : event.data.at };
    switch (event.type) {
      case 'compute.ServerActivated.v1':
        return { ...base, externalId: event.data.externalId ?? current.externalId, ipv4: event.data.ipv4 ?? current.ipv4 };
      case 'compute.ServerMigrationRequested.v1':
        return { ...base, plan: event.data.plan };
      case 'compute.ServerTerminated.v1':
        return { ...base, deletedAt: event.data.at };
      case 'compute.ServerLockChanged.v1':
        return { ...base, locked: event.data.locked };
      case 'compute.ServerUpdated.v1':
        return { ...base, ...(event.data.label !== undefined ? { label: event.data.label } : {}), ...(event.data.tags !== undefined ? { tags: event.data.tags } : {}) };
      case 'compute.ServerInstallStarted.v1':
      case 'compute.ServerPowerActionRequested.v1':
      case 'compute.ServerPoweredOff.v1':
      case 'compute.ServerDeletionRequested.v1':
      case 'compute.ServerOperationFailed.v1':
      case 'compute.ServerOperationRetried.v1':
        return base;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
