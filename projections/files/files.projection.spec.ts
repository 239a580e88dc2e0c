import { streamRecorder } from '../../test/support/fixtures';
import { filesProjection, type FileDoc } from './files.projection';

describe('files read model', () => {
  const fold = (events: ReturnType<ReturnType<typeof streamRecorder>>[]) => {
    let doc: FileDoc | null = null;
    for (const e of events) {
      expect(filesProjection.documentId(e)).toBe('f1');
      doc = filesProjection.evolve(doc, e);
    }
    return doc;
  };
  const record = () => streamRecorder('file-f1', { fileId: 'f1', projectId: 'p1' });

  it('follows a file from its creation through its versions to its soft delete', () => {
    const r = record();
    const created = r('files.FileCreated.v1', { path: '/docs', name: 'a.txt', mimeType: 'text/plain', createdAt: '2026-01-01T00:00:00.000Z' });
    const v1 = r('files.FileVersionAdded.v1', { versionId: 'v1', version: 1, encoding: 'text', contentBase64: 'aGk=', size: 2, checksum: 'x', createdAt: '2026-01-02T00:00:00.000Z' });
    const v2 = r('files.FileVersionAdded.v1', { versionId: 'v2', version: 2, encoding: 'text', contentBase64: 'aGVsbG8=', size: 5, checksum: 'y', createdAt: '2026-01-03T00:00:00.000Z' });
    const deleted = r('files.FileDeleted.v1', { path: '/docs', name: 'a.txt', deletedAt: '2026-01-04T00:00:00.000Z' });

    expect(fold([created])).toEqual({ id: 'f1', _position: 1, projectId: 'p1', path: '/docs', name: 'a.txt', mimeType: 'text/plain', size: 0, status: 'synced', currentVersion: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', deletedAt: null });
    expect(fold([created, v1, v2])).toMatchObject({ _position: 3, size: 5, currentVersion: 2, updatedAt: '2026-01-03T00:00:00.000Z', deletedAt: null });
    // Kept, marked: lists filter it out and lookups answer 404, but a create still counts it.
    expect(fold([created, v1, v2, deleted])).toMatchObject({ _position: 4, size: 5, currentVersion: 2, updatedAt: '2026-01-04T00:00:00.000Z', deletedAt: '2026-01-04T00:00:00.000Z' });
  });

  it('creates no document from a version or a delete of a file it never saw created', () => {
    const r = record();
    r('files.FileCreated.v1', { path: '/', name: 'lost', mimeType: 'text/plain', createdAt: '2026-01-01T00:00:00.000Z' });
    const version = r('files.FileVersionAdded.v1', { versionId: 'v1', version: 1, encoding: 'text', contentBase64: '', size: 0, checksum: 'x', createdAt: '2026-01-02T00:00:00.000Z' });
    const deleted = r('files.FileDeleted.v1', { path: '/', name: 'lost', deletedAt: '2026-01-03T00:00:00.000Z' });
    expect(fold([version])).toBeNull();
    expect(fold([deleted])).toBeNull();
  });
});
