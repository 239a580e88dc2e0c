import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { BACKUP_EVENT_TYPES, type BackupEvent, type BackupSource } from '../../libs/domain/servers/backup.events';
import type { ServerSpecData } from '../../libs/domain/servers/server.events';

export interface BackupDoc extends ReadDoc {
  projectId: string;
  name: string;
  source: BackupSource;
  resourceId: string;
  status: 'available' | 'archived';
  archivedReason: 'deleted' | 'restored' | null;
  restoredServerId: string | null;
  serverSpec: ServerSpecData;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
export const BACKUPS_LIST: ListShape = { query: 'GET /v1/servers/{id}/backups, GET /v1/instances/{id}/backups', equal: ['resourceId', 'status'], residual: ['projectId', 'source'], sortable: ['createdAt', 'name', 'status'] };
const LISTS: ListShape[] = [BACKUPS_LIST];

/** Serves the backup routes of servers and of instances (by the machine's id). */
export const backupsProjection: DocumentProjection<BackupDoc> = {
  name: 'backups',
  version: 1,
  eventTypes: BACKUP_EVENT_TYPES,
  // projectId and source are checked while walking one machine's backups.
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts).
  indexes: indexesFor(LISTS),
  documentId: (e) => (e.data as { backupId: string }).backupId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as BackupEvent;
    switch (event.type) {
      case 'compute.BackupCreated.v1': {
        const d = event.data;
        return {
          id: d.backupId,
          _position: recorded.position,
          projectId: d.projectId,
          name: d.name,
          source: d.source,
          resourceId: d.resourceId,
          status: 'available',
          archivedReason: null,
          restoredServerId: null,
          serverSpec: d.serverSpec,
          createdAt: d.createdAt,
          updatedAt: d.createdAt,
          archivedAt: null,
        };
      }
      case 'compute.BackupArchived.v1':
        if (!current) return null;
        return { ...current, status: 'archived', archivedReason: event.data.reason, restoredServerId: event.data.restoredServerId, archivedAt: event.data.at, updatedAt: event.data.at };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
