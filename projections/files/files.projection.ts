import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, indexOn, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { FILE_EVENT_TYPES, type FileEvent } from '../../libs/domain/files/events';

export interface FileDoc extends ReadDoc {
  projectId: string;
  path: string;
  name: string;
  mimeType: string;
  /** Byte length of the current version (0 without content). */
  size: number;
  /** Stored synchronously, so always `synced` (spec 2.7 shows no transition). */
  status: 'synced' | 'pending' | 'error';
  currentVersion: number;
  createdAt: string;
  updatedAt: string;
  /** Soft delete (spec 3.5): kept, filtered out of lists and answered 404. */
  deletedAt: string | null;
}

export const FILES_LIST: ListShape = { query: 'GET /v1/files', equal: ['projectId', 'deletedAt'], sortable: ['createdAt', 'updatedAt', 'name', 'path', 'status'] };
const LISTS: ListShape[] = [FILES_LIST];

/** Serves GET /v1/files and file lookups; a create counts the files of its path and name (deleted included) here. */
export const filesProjection: DocumentProjection<FileDoc> & { lists: ListShape[] } = {
  name: 'files',
  version: 1,
  eventTypes: FILE_EVENT_TYPES,
  lists: LISTS,
  indexes: [...indexesFor(LISTS), indexOn('projectId', 'path', 'name', 'id')],
  creates: ['files.FileCreated.v1'],
  documentId: (event) => (event.data as { fileId: string }).fileId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as FileEvent;
    switch (event.type) {
      case 'files.FileCreated.v1': {
        const { fileId, projectId, path, name, mimeType, createdAt } = event.data;
        return { id: fileId, _position: recorded.position, projectId, path, name, mimeType, size: 0, status: 'synced', currentVersion: 0, createdAt, updatedAt: createdAt, deletedAt: null };
      }
      case 'files.FileVersionAdded.v1':
        return current && { ...current, _position: recorded.position, size: event.data.size, currentVersion: event.data.version, updatedAt: event.data.createdAt };
      case 'files.FileDeleted.v1':
        return current && { ...current, _position: recorded.position, deletedAt: event.data.deletedAt, updatedAt: event.data.deletedAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
