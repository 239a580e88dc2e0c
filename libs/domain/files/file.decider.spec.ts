import { createHash } from 'node:crypto';
import { deciderSpec } from '../shared/decider-spec';
import type { FileEvent } from './events';
import { canonicalJson, MAX_FILE_CONTENT_BYTES, readContent, storedContent } from './file-content';
import { fileDecider, fileIdFor, fileVersionId, type AddFileVersion, type CreateFile } from './file.decider';

const given = deciderSpec(fileDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const sha = (text: string) => `sha256:${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')}`;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const create = (over: Partial<CreateFile> = {}): CreateFile => ({ type: 'CreateFile', fileId: 'f1', projectId: 'p1', path: '/etc', name: 'app.conf', mimeType: 'text/plain', content: undefined, now, ...over });
const put = (content: unknown, projectId = 'p1'): AddFileVersion => ({ type: 'AddFileVersion', fileId: 'f1', projectId, content, now: later });
const created: FileEvent = { type: 'files.FileCreated.v1', data: { fileId: 'f1', projectId: 'p1', path: '/etc', name: 'app.conf', mimeType: 'text/plain', createdAt: now } };
const version = (n: number, text: string, encoding: 'text' | 'json' = 'text', at = later): FileEvent => ({
  type: 'files.FileVersionAdded.v1',
  data: { fileId: 'f1', projectId: 'p1', versionId: fileVersionId('f1', n), version: n, encoding, contentBase64: b64(text), size: Buffer.byteLength(text), checksum: sha(text), createdAt: at },
});
const deleted: FileEvent = { type: 'files.FileDeleted.v1', data: { fileId: 'f1', projectId: 'p1', path: '/etc', name: 'app.conf', deletedAt: later } };

describe('file decider', () => {
  // The PUT handler appends at the read model's currentVersion as the stream's revision, without reading the stream.
  it("keeps a live file's version count equal to its stream's last revision, with or without content at creation", () => {
    for (const content of [undefined, 'v1']) {
      const stream: FileEvent[] = [];
      let state = fileDecider.initialState();
      const run = (cmd: CreateFile | AddFileVersion) => {
        for (const e of fileDecider.decide(cmd, state)) {
          stream.push(e);
          state = fileDecider.evolve(state, e);
        }
      };
      run(create({ content }));
      for (let i = 0; i < 5; i++) {
        expect(state).toMatchObject({ status: 'live', versions: stream.length - 1 });
        run(put(`v${i + 2}`));
      }
      expect(state).toMatchObject({ status: 'live', versions: stream.length - 1 });
    }
  });

  describe('create', () => {
    it('records the file alone when there is no content yet (currentVersion 0)', () => {
      given([]).when(create()).then([created]);
    });

    it('records version 1 with the checksum of the exact bytes: UTF-8 of a string, canonical JSON of a value', () => {
      given([]).when(create({ content: 'héllo\n' })).then([created, version(1, 'héllo\n', 'text', now)]);
      given([]).when(create({ content: { b: [1, 2.5, true], a: null } })).then([created, version(1, '{"a":null,"b":[1,2.5,true]}', 'json', now)]);
    });

    it('refuses a stream that exists, live or deleted', () => {
      given([created]).when(create()).thenThrows('CONFLICT', /app\.conf.*\/etc/);
      given([created, deleted]).when(create()).thenThrows('CONFLICT');
    });

    it('refuses null content and content over 512 KiB', () => {
      given([]).when(create({ content: null })).thenThrows('BAD_REQUEST', /content/);
      given([]).when(create({ content: 'x'.repeat(MAX_FILE_CONTENT_BYTES + 1) })).thenThrows('BAD_REQUEST', /524289 bytes/);
    });
  });

  describe('versions', () => {
    it('numbers versions in order and keeps every previous one; identical content still makes a version', () => {
      given([created]).when(put('a')).then([version(1, 'a')]);
      given([created, version(1, 'a')]).when(put('a')).then([version(2, 'a')]);
      given([created, version(1, 'a'), version(2, 'b')]).when(put([1])).then([version(3, '[1]', 'json')]);
    });

    it('accepts exactly 512 KiB, counted in UTF-8 bytes, and refuses one byte more', () => {
      const full = 'é'.repeat(MAX_FILE_CONTENT_BYTES / 2);
      given([created]).when(put(full)).then([version(1, full)]);
      given([created]).when(put(`${full}x`)).thenThrows('BAD_REQUEST');
    });

    it("answers NOT_FOUND for a missing, deleted or other project's file", () => {
      given([]).when(put('a')).thenThrows('NOT_FOUND');
      given([created, deleted]).when(put('a')).thenThrows('NOT_FOUND');
      given([created]).when(put('a', 'p2')).thenThrows('NOT_FOUND');
    });
  });

  describe('delete', () => {
    it('soft-deletes a live file once', () => {
      given([created, version(1, 'a')]).when({ type: 'DeleteFile', fileId: 'f1', projectId: 'p1', now: later }).then([deleted]);
      given([created, deleted]).when({ type: 'DeleteFile', fileId: 'f1', projectId: 'p1', now: later }).thenThrows('NOT_FOUND');
      given([created]).when({ type: 'DeleteFile', fileId: 'f1', projectId: 'p2', now: later }).thenThrows('NOT_FOUND');
    });
  });

  describe('content', () => {
    it('serialises JSON canonically (RFC 8785): sorted keys, no whitespace, shortest numbers', () => {
      expect(canonicalJson({ z: { y: 1, x: [] }, a: 'é"\u0001', '': 1e21, n: -0, f: 0.1 })).toBe('{"":1e+21,"a":"é\\"\\u0001","f":0.1,"n":0,"z":{"x":[],"y":1}}');
      const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}');
      expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"a":1}');
      expect(() => canonicalJson({ a: Infinity })).toThrow(RangeError);
    });

    it('reads back what it stored', () => {
      const json = storedContent({ b: 1, a: [true] });
      expect(readContent(json.encoding, json.text)).toEqual({ a: [true], b: 1 });
      expect(storedContent('{"b":1}')).toMatchObject({ encoding: 'text', text: '{"b":1}', size: 7 });
      expect(readContent('text', '{"b":1}')).toBe('{"b":1}');
    });

    it('derives a new id per generation of a path and name, and none across projects', () => {
      const ids = new Set([fileIdFor('p1', '/a', 'b', 0), fileIdFor('p1', '/a', 'b', 1), fileIdFor('p2', '/a', 'b', 0), fileIdFor('p1', '/a/b', '', 0), fileIdFor('p1', '/a', 'b', 0)]);
      expect(ids.size).toBe(4);
    });
  });
});
