import type { DomainEvent } from '../shared/domain-error';

export const fileStream = (fileId: string) => `file-${fileId}`;

/** How a version's bytes read back: `text` as a string, `json` parsed (the bytes are its canonical serialisation). */
export type FileEncoding = 'text' | 'json';

export type FileCreated = DomainEvent<'files.FileCreated.v1', { fileId: string; projectId: string; path: string; name: string; mimeType: string; createdAt: string }>;
/**
 * One version: the exact bytes stored, base64 (a fixed 4/3 of at most 512 KiB, whatever the content:
 * a JSON string of quotes or control characters would be up to six times its size on the topics).
 */
export type FileVersionAdded = DomainEvent<
  'files.FileVersionAdded.v1',
  { fileId: string; projectId: string; versionId: string; version: number; encoding: FileEncoding; contentBase64: string; size: number; checksum: string; createdAt: string }
>;
export type FileDeleted = DomainEvent<'files.FileDeleted.v1', { fileId: string; projectId: string; path: string; name: string; deletedAt: string }>;
export type FileEvent = FileCreated | FileVersionAdded | FileDeleted;

export const FILE_EVENT_TYPES = ['files.FileCreated.v1', 'files.FileVersionAdded.v1', 'files.FileDeleted.v1'] as const satisfies readonly FileEvent['type'][];
