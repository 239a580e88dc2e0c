import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { githubCompatibleTracker, TrackerError } from './tracker-client';

const token = 'ghp_secret_token_0123456789';

/** The GitHub-compatible issues client against a real local HTTP server playing the tracker. */
describe('issue tracker client', () => {
  let server: http.Server;
  let url: string;
  const got: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  /** The answer to each request path (`<method> <path without query>`); the default is 404. */
  const answers = new Map<string, (req: http.IncomingMessage) => { status: number; body?: string; headers?: Record<string, string> }>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url!;
        got.push({ method: req.method!, path, headers: req.headers, body: Buffer.concat(chunks).toString() });
        const answer = answers.get(`${req.method} ${path.split('?')[0]}`)?.(req) ?? { status: 404, body: '{"message":"Not Found"}' };
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body ?? '');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    got.length = 0;
    answers.clear();
  });
  const tracker = () => githubCompatibleTracker({ url, repo: 'acme/support', token }, 5_000);
  const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a TrackerError'); }, (err: unknown) => err as TrackerError);

  it('creates an issue and a comment with the token in the Authorization header only', async () => {
    answers.set('POST /repos/acme/support/issues', () => ({ status: 201, body: '{"number":42,"title":"x"}' }));
    answers.set('POST /repos/acme/support/issues/42/comments', () => ({ status: 201, body: '{"id":9001}' }));
    expect(await tracker().createIssue({ title: 'TCK-000001 Disk full', body: 'Help\n<!-- ticket:t1 -->' })).toEqual({ number: 42 });
    expect(await tracker().comment(42, 'More')).toEqual({ id: 9001 });
    expect(got.map((g) => [g.method, g.path, JSON.parse(g.body)])).toEqual([
      ['POST', '/repos/acme/support/issues', { title: 'TCK-000001 Disk full', body: 'Help\n<!-- ticket:t1 -->' }],
      ['POST', '/repos/acme/support/issues/42/comments', { body: 'More' }],
    ]);
    expect(got[0].headers).toMatchObject({ authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' });
    expect(got.map((g) => `${g.path} ${g.body}`).join('\n')).not.toContain(token);
  });

  it('finds an issue or a comment by its marker across pages, following only next links of the tracker itself', async () => {
    const since = '2026-01-01T00:00:00.000Z';
    answers.set('GET /repos/acme/support/issues', (req) =>
      req.url!.includes('page=2')
        ? { status: 200, body: JSON.stringify([{ number: 8, body: 'other' }, { number: 7, body: 'x <!-- ticket:t1 -->' }]) }
        : { status: 200, body: JSON.stringify([{ number: 9, body: null }]), headers: { link: `<${url}/repos/acme/support/issues?page=2>; rel="next", <${url}/repos/acme/support/issues?page=5>; rel="last"` } },
    );
    expect(await tracker().findIssue('<!-- ticket:t1 -->', since)).toBe(7);
    expect(got.map((g) => g.path)).toEqual([`/repos/acme/support/issues?state=all&since=${encodeURIComponent(since)}&per_page=100`, '/repos/acme/support/issues?page=2']);

    got.length = 0;
    answers.set('GET /repos/acme/support/issues/7/comments', () => ({ status: 200, body: JSON.stringify([{ id: 1, body: 'a' }]), headers: { link: '<https://elsewhere.example/steal?page=2>; rel="next"' } }));
    expect(await tracker().findComment(7, '<!-- message:m1 -->', since)).toBeNull();
    expect(got).toHaveLength(1);
  });

  it('fails a refusal of the request itself as permanent, anything else as worth retrying, never with the token', async () => {
    answers.set('POST /repos/acme/support/issues', () => ({ status: 422, body: '{"message":"Validation Failed"}' }));
    const refused = await failure(tracker().createIssue({ title: 't', body: 'b' }));
    expect(refused).toBeInstanceOf(TrackerError);
    expect([refused.status, refused.permanent, refused.message]).toEqual([422, true, 'tracker POST /repos/acme/support/issues answered 422']);

    answers.set('POST /repos/acme/support/issues', () => ({ status: 503 }));
    expect(await failure(tracker().createIssue({ title: 't', body: 'b' }))).toMatchObject({ status: 503, permanent: false });
    answers.set('POST /repos/acme/support/issues', () => ({ status: 201, body: '<html>' }));
    expect(await failure(tracker().createIssue({ title: 't', body: 'b' }))).toMatchObject({ status: 201, permanent: false, message: expect.stringMatching(/not JSON/) });
    answers.set('POST /repos/acme/support/issues', () => ({ status: 201, body: '{"id":1}' }));
    expect(await failure(tracker().createIssue({ title: 't', body: 'b' }))).toMatchObject({ status: null, permanent: false, message: expect.stringMatching(/without its number/) });

    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const unreachable = await failure(githubCompatibleTracker({ url: `http://127.0.0.1:${port}`, repo: 'acme/support', token }, 5_000).comment(1, 'x'));
    expect(unreachable).toMatchObject({ status: null, permanent: false });
    expect(unreachable.message).not.toContain(token);
  });
});
