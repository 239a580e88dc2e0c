/**
 * Following a list's `links.next` (its cursor) visits every item once, in the order paging by number
 * gives, and the store seeks to each page instead of skipping the ones before it: the read store's
 * own count of skipped documents (MongoDB through FerretDB on the server profile) does not move.
 * Following `links.prev` back from the last page does the same the other way.
 */
import type { FindStats } from '../../libs/readstore/src/read-store.port';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { ed25519Key } from '../support/ssh-keys';

describe.each<Profile>(['embedded', 'server'])('list cursors (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: ReturnType<TestServer['as']>;
  let keysPath: string;
  let stats: FindStats;
  const ids: string[] = [];

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
    stats = srv.platform.reads.stats!;
    const provider = await owner.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'x' });
    expect(provider.status).toBe(201);
    keysPath = `/v1/ssh-keys?providerId=${encodeURIComponent(provider.body.data.id)}`;
    // 7 keys under 3 names: ties on the sort field that only the id orders
    for (let i = 0; i < 7; i++) {
      const res = await owner.post(keysPath, { name: ['web', 'db', 'cache'][i % 3], publicKey: ed25519Key(`k${i}`) });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
  });
  afterAll(async () => {
    await srv?.stop();
  });

  /** The path and query of an absolute link. */
  const local = (link: string) => {
    const u = new URL(link);
    return `${u.pathname}${u.search}`;
  };

  it.each(['name', '-name', '-createdAt'])('sort=%s: following links.next visits every item once, as paging by number does, and skips nothing', async (sort) => {
    const byNumber: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await owner.get(`${keysPath}&sort=${sort}&limit=2&page=${page}`);
      expect(res.status).toBe(200);
      byNumber.push(...res.body.data.map((k: { id: string }) => k.id));
    }
    expect([...byNumber].sort()).toEqual([...ids].sort());

    const followed: string[] = [];
    const metas: unknown[] = [];
    let next: string | undefined = `${keysPath}&sort=${sort}&limit=2`;
    let cursorPages = 0;
    while (next) {
      const before = { ...stats };
      const res = await owner.get(next);
      expect(res.status).toBe(200);
      if (next.includes('cursor=')) {
        cursorPages++;
        // the page was sought, not skipped to
        expect({ page: res.body.meta.page, skipped: stats.skipped - before.skipped }).toEqual({ page: res.body.meta.page, skipped: 0 });
        expect(stats.seeks).toBeGreaterThan(before.seeks);
      }
      metas.push(res.body.meta);
      followed.push(...res.body.data.map((k: { id: string }) => k.id));
      next = res.body.links.next ? local(res.body.links.next) : undefined;
    }
    expect(followed).toEqual(byNumber);
    expect(cursorPages).toBe(3);
    expect(metas).toEqual([1, 2, 3, 4].map((page) => ({ page, limit: 2, total: 7, totalPages: 4 })));

    // the same page by number skips the pages before it (the count does count)
    const before = stats.skipped;
    expect((await owner.get(`${keysPath}&sort=${sort}&limit=2&page=3`)).status).toBe(200);
    expect(stats.skipped - before).toBeGreaterThanOrEqual(4);
  });

  it.each(['name', '-name', '-createdAt'])('sort=%s: following links.prev from the last page back to page 1 visits every item once, as paging by number does, and skips nothing', async (sort) => {
    const byNumber: string[][] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await owner.get(`${keysPath}&sort=${sort}&limit=2&page=${page}`);
      expect(res.status).toBe(200);
      byNumber.push(res.body.data.map((k: { id: string }) => k.id));
    }
    expect(byNumber.flat().sort()).toEqual([...ids].sort());

    const followed: string[][] = [];
    const metas: unknown[] = [];
    let prev: string | undefined = `${keysPath}&sort=${sort}&limit=2&page=4`;
    let cursorPages = 0;
    while (prev) {
      const before = { ...stats };
      const res = await owner.get(prev);
      expect(res.status).toBe(200);
      if (prev.includes('cursor=')) {
        cursorPages++;
        // the page was sought back from the page after it, not skipped to
        expect({ page: res.body.meta.page, skipped: stats.skipped - before.skipped }).toEqual({ page: res.body.meta.page, skipped: 0 });
        expect(stats.seeks).toBeGreaterThan(before.seeks);
      }
      metas.push(res.body.meta);
      followed.push(res.body.data.map((k: { id: string }) => k.id));
      prev = res.body.links.prev ? local(res.body.links.prev) : undefined;
    }
    expect(followed.reverse()).toEqual(byNumber);
    expect(cursorPages).toBe(3);
    expect(metas).toEqual([4, 3, 2, 1].map((page) => ({ page, limit: 2, total: 7, totalPages: 4 })));
  });

  it('answers 400 INVALID_QUERY on a prev cursor for another page or sort', async () => {
    const last = await owner.get(`${keysPath}&sort=name&limit=2&page=4`);
    const prev = local(last.body.links.prev);
    expect(prev).toContain('cursor=');
    for (const path of [prev.replace('sort=name', 'sort=-name'), prev.replace('page=3', 'page=2')]) {
      const res = await owner.get(path);
      expect({ path, status: res.status, errors: res.body.errors }).toEqual({ path, status: 400, errors: [expect.objectContaining({ code: 'INVALID_QUERY', source: { parameter: 'cursor' } })] });
    }
  });

  it('answers 400 INVALID_QUERY on a cursor that does not parse or belongs to another sort or filter', async () => {
    const first = await owner.get(`${keysPath}&sort=name&limit=2`);
    const next = local(first.body.links.next);
    expect(next).toContain('cursor=');
    const bad = [next.replace(/cursor=[^&]+/, 'cursor=garbage!'), next.replace('sort=name', 'sort=-name'), next.replace(/providerId=[^&]+/, 'providerId=someone-else'), next.replace('page=2', 'page=3')];
    for (const path of bad) {
      const res = await owner.get(path);
      expect({ path, status: res.status, errors: res.body.errors }).toEqual({ path, status: 400, errors: [expect.objectContaining({ code: 'INVALID_QUERY', source: { parameter: 'cursor' } })] });
    }
  });
});
