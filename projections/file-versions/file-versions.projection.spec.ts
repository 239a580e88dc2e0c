import { streamRecorder } from '../../test/support/fixtures';
import { fileVersionDocId, fileVersionsProjection } from './file-versions.projection';

describe('file versions read model', () => {
  it('keeps each version under its file and number, its bytes as text', () => {
    const r = streamRecorder('file-f1', { fileId: 'f1', projectId: 'p1' });
    r('files.FileCreated.v1', { path: '/', name: 'a.json', mimeType: 'application/json', createdAt: '2026-01-01T00:00:00.000Z' });
    const content = '{"é":"ü ✓"}';
    const v2 = r('files.FileVersionAdded.v1', { versionId: 'ver-2', version: 2, encoding: 'json', contentBase64: Buffer.from(content, 'utf8').toString('base64'), size: Buffer.byteLength(content), checksum: 'sha', createdAt: '2026-01-02T00:00:00.000Z' });

    expect(fileVersionsProjection.documentId(v2)).toBe(fileVersionDocId('f1', 2));
    expect(fileVersionsProjection.evolve(null, v2)).toEqual({ id: 'f1/2', _position: 2, versionId: 'ver-2', fileId: 'f1', projectId: 'p1', version: 2, encoding: 'json', text: content, size: Buffer.byteLength(content), checksum: 'sha', createdAt: '2026-01-02T00:00:00.000Z' });
  });
});
