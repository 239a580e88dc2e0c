import { createHash } from 'node:crypto';
import { requireEngine } from '../engines';
import { readTopicUntil } from '../support/kafka';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Client = ReturnType<TestServer['as']>;

const KiB = 1024;
const sha256 = (stored: string) => `sha256:${createHash('sha256').update(Buffer.from(stored, 'utf8')).digest('hex')}`;
const fileShape = { id: expect.any(String), path: expect.any(String), name: expect.any(String), size: expect.any(Number), mimeType: expect.any(String), status: 'synced', currentVersion: expect.any(Number), createdAt: expect.any(String), updatedAt: expect.any(String) };

describe.each<Profile>(['embedded', 'server'])('files (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: Client;
  let other: Client;
  const put = (c: Client, id: string, body: unknown, headers?: Record<string, string>) => c.send('PUT', `/v1/files/${id}`, body, headers);
  const create = async (body: Record<string, unknown>) => {
    const res = await owner.post('/v1/files', body);
    expect(res.status).toBe(201);
    return res.body.data as { id: string; currentVersion: number; size: number };
  };

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'tenant two' });
    other = srv.as(project.body.included[0].attributes.key);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('creates a file without content (version 0), answered flat and readable at once by GET and in the list', async () => {
    const res = await owner.post('/v1/files', { path: '/empty', name: 'none.txt' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ ...fileShape, path: '/empty', name: 'none.txt', size: 0, mimeType: 'text/plain', currentVersion: 0 });
    expect(res.body.data.type).toBeUndefined();
    const got = await owner.get(`/v1/files/${res.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect((await owner.get('/v1/files?limit=100')).body.data).toContainEqual(res.body.data);
    const versions = await owner.get(`/v1/files/${res.body.data.id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body).toMatchObject({ data: [], meta: { page: 1, total: 0 } });
  });

  it('keeps every version in order with the checksum of the exact bytes stored, string and JSON alike, after ten PUTs', async () => {
    const file = await create({ path: '/config', name: 'app.conf', content: 'v1 héllo\n' });
    expect(file).toMatchObject({ currentVersion: 1, size: Buffer.byteLength('v1 héllo\n'), mimeType: 'text/plain' });
    // Expected stored bytes: a string as UTF-8; JSON as RFC 8785 (sorted keys, no whitespace).
    const sent: unknown[] = ['v1 héllo\n'];
    const stored: string[] = ['v1 héllo\n'];
    for (let i = 2; i <= 11; i++) {
      const content = i % 2 === 0 ? { replicas: i, name: 'web', env: { B: '2', A: '1' }, ratio: 0.5 } : `line ${i}\n`;
      const res = await put(owner, file.id, { content });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: file.id, currentVersion: i });
      sent.push(content);
      stored.push(typeof content === 'string' ? content : `{"env":{"A":"1","B":"2"},"name":"web","ratio":0.5,"replicas":${i}}`);
    }
    // Identical content still makes a version (DECISIONS 17).
    expect((await put(owner, file.id, { content: sent[10] })).body.data.currentVersion).toBe(12);
    sent.push(sent[10]);
    stored.push(stored[10]);

    const got = (await owner.get(`/v1/files/${file.id}`)).body.data;
    expect(got).toMatchObject({ currentVersion: 12, size: Buffer.byteLength(stored[11]) });
    expect(got.updatedAt >= got.createdAt).toBe(true);

    const list = await owner.get(`/v1/files/${file.id}/versions?limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ page: 1, limit: 100, total: 12, totalPages: 1 });
    expect(list.body.data.map((v: { version: number }) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    list.body.data.forEach((v: Record<string, unknown>, i: number) => {
      expect(v).toEqual({ id: expect.any(String), version: i + 1, content: sent[i], checksum: sha256(stored[i]), size: Buffer.byteLength(stored[i]), createdAt: expect.any(String) });
    });
    expect(new Set(list.body.data.map((v: { id: string }) => v.id)).size).toBe(12);
    for (const v of list.body.data) {
      const one = await owner.get(`/v1/files/${file.id}/versions/${v.version}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ data: v });
    }
    // Versions page in order; newest first on request.
    const page2 = await owner.get(`/v1/files/${file.id}/versions?limit=5&page=2`);
    expect(page2.body.data.map((v: { version: number }) => v.version)).toEqual([6, 7, 8, 9, 10]);
    expect(page2.body.links.next).toContain('page=3');
    expect((await owner.get(`/v1/files/${file.id}/versions?sort=-version&limit=2`)).body.data.map((v: { version: number }) => v.version)).toEqual([12, 11]);
    for (const missing of ['13', '0', 'one', '1.0']) expect((await owner.get(`/v1/files/${file.id}/versions/${missing}`)).status).toBe(404);

    // The events: created, then one FileVersionAdded per version whose bytes are what the checksum covers.
    const events = await srv.platform.events.readStream(`file-${file.id}`);
    expect(events.map((e) => e.type)).toEqual(['files.FileCreated.v1', ...Array(12).fill('files.FileVersionAdded.v1')]);
    events.slice(1).forEach((e, i) => {
      const bytes = Buffer.from(String(e.data.contentBase64), 'base64');
      expect(bytes.toString('utf8')).toBe(stored[i]);
      expect(e.data.checksum).toBe(sha256(stored[i]));
    });
  });

  it('stores JSON content of any kind with application/json by default, and keeps a string that looks like JSON a string', async () => {
    const json = await owner.post('/v1/files', { path: '/data', name: 'list.json', content: [3, { b: true, a: 'x' }] });
    expect(json.status).toBe(201);
    expect(json.body.data).toMatchObject({ mimeType: 'application/json', size: Buffer.byteLength('[3,{"a":"x","b":true}]') });
    const v1 = (await owner.get(`/v1/files/${json.body.data.id}/versions/1`)).body.data;
    expect(v1).toMatchObject({ content: [3, { a: 'x', b: true }], checksum: sha256('[3,{"a":"x","b":true}]') });
    const text = await owner.post('/v1/files', { path: '/data', name: 'raw.json', mimeType: 'application/json', content: '{ "b": 1 }' });
    const t1 = (await owner.get(`/v1/files/${text.body.data.id}/versions/1`)).body.data;
    expect(t1).toMatchObject({ content: '{ "b": 1 }', checksum: sha256('{ "b": 1 }'), size: 10 });
    const scalar = await owner.post('/v1/files', { data: { type: 'files', attributes: { path: '/data', name: 'n', content: 42 } } });
    expect(scalar.status).toBe(201);
    expect((await owner.get(`/v1/files/${scalar.body.data.id}/versions/1`)).body.data).toMatchObject({ content: 42, checksum: sha256('42') });
  });

  it('accepts exactly 512 KiB per version and answers 413 PAYLOAD_TOO_LARGE one byte over, on create and on PUT', async () => {
    const full = 'é'.repeat((512 * KiB) / 2); // 2 bytes each in UTF-8
    const file = await create({ path: '/big', name: 'max.txt', content: full });
    expect(file.size).toBe(512 * KiB);
    const over = await owner.post('/v1/files', { path: '/big', name: 'over.txt', content: `${full}x` });
    expect(over.status).toBe(413);
    expect(over.body.errors[0]).toMatchObject({ status: '413', code: 'PAYLOAD_TOO_LARGE', source: { pointer: '/content' } });
    const putOver = await put(owner, file.id, { data: { type: 'files', attributes: { content: { text: 'x'.repeat(512 * KiB) } } } });
    expect(putOver.status).toBe(413);
    expect(putOver.body.errors[0]).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', source: { pointer: '/data/attributes/content' } });
    expect((await owner.get(`/v1/files/${file.id}`)).body.data.currentVersion).toBe(1);
    const v1 = (await owner.get(`/v1/files/${file.id}/versions/1`)).body.data;
    expect(v1).toMatchObject({ size: 512 * KiB, checksum: sha256(full) });
    expect(v1.content).toBe(full);
  });

  it('soft-deletes: the file leaves lists, answers 404 to every route, and its path and name are free again', async () => {
    const file = await create({ path: '/tmp', name: 'gone.txt', content: 'bye' });
    expect((await owner.post('/v1/files', { path: '/tmp', name: 'gone.txt' })).status).toBe(409);
    expect((await owner.delete(`/v1/files/${file.id}`)).status).toBe(204);
    for (const path of [`/v1/files/${file.id}`, `/v1/files/${file.id}/versions`, `/v1/files/${file.id}/versions/1`]) expect((await owner.get(path)).status).toBe(404);
    expect((await put(owner, file.id, { content: 'again' })).status).toBe(404);
    expect((await owner.delete(`/v1/files/${file.id}`)).status).toBe(404);
    expect((await owner.get('/v1/files?limit=100')).body.data.map((f: { id: string }) => f.id)).not.toContain(file.id);
    const events = await srv.platform.events.readStream(`file-${file.id}`);
    expect(events.map((e) => e.type)).toEqual(['files.FileCreated.v1', 'files.FileVersionAdded.v1', 'files.FileDeleted.v1']);
    const again = await create({ path: '/tmp', name: 'gone.txt', content: 'hello again' });
    expect(again.id).not.toBe(file.id);
    expect(again.currentVersion).toBe(1);
  });

  it('gives racing PUTs distinct, consecutive versions: each is a version or 409 CONFLICT, none lost or doubled', async () => {
    const file = await create({ path: '/race', name: 'versions.txt', content: 'v1' });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => put(owner, file.id, { content: `racer ${i}` })));
    const won = answers.filter((a) => a.status === 200);
    answers.filter((a) => a.status !== 200).forEach((a) => expect([a.status, a.body.errors[0].code]).toEqual([409, 'CONFLICT']));
    expect(won.length).toBeGreaterThan(0);
    const versions = won.map((a) => a.body.data.currentVersion as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: won.length }, (_, i) => i + 2));
    const list = await owner.get(`/v1/files/${file.id}/versions?limit=100`);
    expect(list.body.data.map((v: { version: number }) => v.version)).toEqual([1, ...versions]);
    // Each answer's version holds what that PUT sent.
    for (const [i, a] of answers.entries()) {
      if (a.status === 200) expect((await owner.get(`/v1/files/${file.id}/versions/${a.body.data.currentVersion}`)).body.data.content).toBe(`racer ${i}`);
    }
    // And a PUT after the race appends the next one.
    expect((await put(owner, file.id, { content: 'after' })).body.data.currentVersion).toBe(versions.length + 2);
  });

  it('refuses a taken path and name with 409 even when two creates race', async () => {
    const body = { path: '/race', name: 'once.txt', content: 'x' };
    const answers = await Promise.all([owner.post('/v1/files', body), owner.post('/v1/files', body), owner.post('/v1/files', body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body.errors[0].code).toBe('CONFLICT');
  });

  it("answers 404 for another project's file on every route and lists only the project's own", async () => {
    const mine = await create({ path: '/secret', name: 'mine.txt', content: 'mine' });
    for (const path of [`/v1/files/${mine.id}`, `/v1/files/${mine.id}/versions`, `/v1/files/${mine.id}/versions/1`]) expect((await other.get(path)).status).toBe(404);
    expect((await put(other, mine.id, { content: 'theirs' })).status).toBe(404);
    expect((await other.delete(`/v1/files/${mine.id}`)).status).toBe(404);
    expect((await other.get('/v1/files')).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await owner.get(`/v1/files/${mine.id}/versions`)).body.data).toHaveLength(1);
    // The same path and name are free in another project.
    expect((await other.post('/v1/files', { path: '/secret', name: 'mine.txt' })).status).toBe(201);
  });

  it('pages and sorts the list: newest first by default, by name on request, 400 INVALID_QUERY for an unknown sort', async () => {
    const names = ['p-c', 'p-a', 'p-b'];
    const ids: string[] = [];
    for (const name of names) ids.push((await create({ path: '/paged', name })).id);
    const first = await other.get('/v1/files?limit=1');
    expect(first.body.meta.total).toBe(1);
    const all = (await owner.get('/v1/files?limit=100')).body;
    expect(all.data.slice(0, 3).map((f: { id: string }) => f.id)).toEqual([...ids].reverse());
    const total = all.meta.total;
    const page = await owner.get('/v1/files?limit=2&page=2&sort=name');
    expect(page.body.meta).toEqual({ page: 2, limit: 2, total, totalPages: Math.ceil(total / 2) });
    const byName = (await owner.get('/v1/files?limit=100&sort=name')).body.data.map((f: { name: string }) => f.name);
    expect(byName).toEqual([...byName].sort());
    expect(byName.filter((n: string) => n.startsWith('p-'))).toEqual(['p-a', 'p-b', 'p-c']);
    const bad = await owner.get('/v1/files?sort=size');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('INVALID_QUERY');
    expect((await owner.get('/v1/files?limit=101')).status).toBe(400);
  });

  it('answers 400 with a pointer per offending field', async () => {
    const res = await owner.post('/v1/files', { name: 'a/b', mimeType: 'not a type', content: null });
    expect(res.status).toBe(400);
    const pointers = res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    expect(pointers).toEqual(['/content', '/mimeType', '/name', '/path']);
    expect(res.body.errors.every((e: { code: string }) => e.code === 'BAD_REQUEST')).toBe(true);
    const file = await create({ path: '/v', name: 'valid' });
    const noContent = await put(owner, file.id, {});
    expect(noContent.status).toBe(400);
    expect(noContent.body.errors[0]).toMatchObject({ code: 'BAD_REQUEST', source: { pointer: '/content' } });
    const wrapped = await put(owner, file.id, { data: { type: 'files', attributes: { content: null } } });
    expect(wrapped.body.errors[0].source.pointer).toBe('/data/attributes/content');
    expect((await owner.post('/v1/files', { path: '', name: 'x' })).body.errors[0].source.pointer).toBe('/path');
    expect((await owner.get(`/v1/files/${file.id}`)).body.data.currentVersion).toBe(0);
  });

  if (profile === 'server') {
    it('publishes created, version and delete events, a 512 KiB version included, to cloud.files.events.v1 keyed by stream', async () => {
      // Quotes double and control characters grow sixfold in a JSON string: the event carries the bytes base64, a fixed 4/3.
      const file = await create({ path: '/topic', name: 'quotes.txt', content: `${'"'.repeat(64 * KiB)}${'\u0001'.repeat(64 * KiB)}${'x'.repeat(384 * KiB)}` });
      expect(file.size).toBe(512 * KiB);
      expect((await put(owner, file.id, { content: { v: 2 } })).status).toBe(200);
      expect((await owner.delete(`/v1/files/${file.id}`)).status).toBe(204);
      const stream = `file-${file.id}`;
      const { types, keys } = await readTopicUntil(requireEngine('KAFKA_BROKERS').split(','), srv.env.KAFKA_TOPIC_PREFIX, 'files', (log) => (log.types.get(stream) ?? []).includes('files.FileDeleted.v1'));
      expect(types.get(stream)).toEqual(['files.FileCreated.v1', 'files.FileVersionAdded.v1', 'files.FileVersionAdded.v1', 'files.FileDeleted.v1']);
      expect([...keys].every((k) => k.startsWith('file-'))).toBe(true);
    }, 90000);
  }
});
