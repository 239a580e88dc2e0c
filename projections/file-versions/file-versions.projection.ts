import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { FileEncoding, FileVersionAdded } from '../../libs/domain/files/events';

export interface FileVersionDoc extends ReadDoc {
  /** The version's own id (the document's id is `<fileId>/<version>`). */
  versionId: string;
  fileId: string;
  projectId: string;
  version: number;
  encoding: FileEncoding;
  /** The stored bytes as UTF-8 text (the event carries them base64). */
  text: string;
  size: number;
  checksum: string;
  createdAt: string;
}

export const FILE_VERSIONS_LIST: ListShape = { query: 'GET /v1/files/{id}/versions', equal: ['fileId'], sortable: ['version', 'createdAt'], defaultSort: [{ field: 'version', direction: 1 }] };
const LISTS: ListShape[] = [FILE_VERSIONS_LIST];

/** The id of a version's document: its file and number, so a version is read by number without a query. */
export const fileVersionDocId = (fileId: string, version: number) => `${fileId}/${version}`;

/** Serves GET /v1/files/{id}/versions (version order) and each version by number; a version is never removed. */
export const fileVersionsProjection: DocumentProjection<FileVersionDoc> & { lists: ListShape[] } = {
  name: 'file_versions',
  version: 1,
  eventTypes: ['files.FileVersionAdded.v1'],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  creates: ['files.FileVersionAdded.v1'],
  documentId: (event) => {
    const { fileId, version } = event.data as FileVersionAdded['data'];
    return fileVersionDocId(fileId, version);
  },
  evolve: (_current, recorded: RecordedEvent) => {
    const { fileId, projectId, versionId, version, encoding, contentBase64, size, checksum, createdAt } = recorded.data as FileVersionAdded['data'];
    return { id: fileVersionDocId(fileId, version), _position: recorded.position, versionId, fileId, projectId, version, encoding, text: Buffer.from(contentBase64, 'base64').toString('utf8'), size, checksum, createdAt };
  },
};
