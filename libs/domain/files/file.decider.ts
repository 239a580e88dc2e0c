import { v5 as uuidv5 } from 'uuid';
import { DomainError, type Decider } from '../shared/domain-error';
import type { FileEvent, FileVersionAdded } from './events';
import { MAX_FILE_CONTENT_BYTES, storedContent } from './file-content';

const FILE_IDS = '3a0c5e8b-1f4d-4b6a-9c2e-7d8f0a1b2c3d';

/**
 * A file's id derives from its project, path, name and how many files of that path and name were
 * deleted before it: two creates of one live path and name land on the same stream, and the second
 * is refused (409 CONFLICT) by its expected revision; after a delete the next generation is free.
 */
export const fileIdFor = (projectId: string, path: string, name: string, generation: number): string => uuidv5(JSON.stringify([projectId, path, name, generation]), FILE_IDS);
export const fileVersionId = (fileId: string, version: number): string => uuidv5(`${fileId}/${version}`, FILE_IDS);

export type CreateFile = { type: 'CreateFile'; fileId: string; projectId: string; path: string; name: string; mimeType: string; content: unknown; now: string };
export type AddFileVersion = { type: 'AddFileVersion'; fileId: string; projectId: string; content: unknown; now: string };
export type DeleteFile = { type: 'DeleteFile'; fileId: string; projectId: string; now: string };
export type FileCommand = CreateFile | AddFileVersion | DeleteFile;

export type FileState =
  | { status: 'none' }
  | { status: 'live' | 'deleted'; fileId: string; projectId: string; path: string; name: string; versions: number };

const notFound = () => new DomainError('NOT_FOUND', 'File not found');

function versionAdded(fileId: string, projectId: string, version: number, content: unknown, now: string): FileVersionAdded {
  // null and undefined are "no content", not a JSON value to store.
  if (content === null || content === undefined) throw new DomainError('BAD_REQUEST', 'content must be a string or a JSON value');
  const stored = storedContent(content);
  if (stored.size > MAX_FILE_CONTENT_BYTES) throw new DomainError('BAD_REQUEST', `content is ${stored.size} bytes; a version holds at most ${MAX_FILE_CONTENT_BYTES}`);
  const { encoding, size, checksum } = stored;
  const contentBase64 = Buffer.from(stored.text, 'utf8').toString('base64');
  return { type: 'files.FileVersionAdded.v1', data: { fileId, projectId, versionId: fileVersionId(fileId, version), version, encoding, contentBase64, size, checksum, createdAt: now } };
}

/** A project's versioned file (spec 2.7, 3.5, DECISIONS 17): every PUT adds a version, DELETE is soft. */
export const fileDecider: Decider<FileCommand, FileEvent, FileState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'files.FileCreated.v1': {
        const { fileId, projectId, path, name } = event.data;
        return { status: 'live', fileId, projectId, path, name, versions: 0 };
      }
      case 'files.FileVersionAdded.v1':
        return state.status === 'none' ? state : { ...state, versions: event.data.version };
      case 'files.FileDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateFile': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `A file named "${command.name}" already exists at "${command.path}"`);
        const { fileId, projectId, path, name, mimeType, now } = command;
        const created: FileEvent = { type: 'files.FileCreated.v1', data: { fileId, projectId, path, name, mimeType, createdAt: now } };
        return command.content === undefined ? [created] : [created, versionAdded(fileId, projectId, 1, command.content, now)];
      }
      case 'AddFileVersion':
        // Another project's file is indistinguishable from a missing one; a deleted one is gone (DECISIONS 13).
        if (state.status !== 'live' || state.projectId !== command.projectId) throw notFound();
        // Identical content still makes a version (DECISIONS 17).
        return [versionAdded(state.fileId, state.projectId, state.versions + 1, command.content, command.now)];
      case 'DeleteFile':
        if (state.status !== 'live' || state.projectId !== command.projectId) throw notFound();
        return [{ type: 'files.FileDeleted.v1', data: { fileId: state.fileId, projectId: state.projectId, path: state.path, name: state.name, deletedAt: command.now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
