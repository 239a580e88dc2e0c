import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

/**
 * Issue 24: one key could lock out its project, its refused requests still counting against the
 * project's budget. The limits are small here (5 a key, 8 a project) and the clock is held, so the
 * whole test is one window; the server profile counts in Redis.
 */
describe.each<Profile>(['embedded', 'server'])('rate limits (%s profile)', (profile) => {
  let srv: TestServer;
  const clock = new ManualClock();

  beforeAll(async () => {
    srv = await startTestServer(profile, { RATE_LIMIT_KEY_PER_MIN: '5', RATE_LIMIT_PROJECT_PER_MIN: '8' }, { clock });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("a key refused by its own limit spends none of its project's budget: the other keys keep the rest", async () => {
    const a = srv.as(srv.bootstrap.apiKey);
    const created = await a.post('/v1/api-keys', { name: 'second', role: 'viewer' });
    expect(created.status).toBe(201);
    const b = srv.as(created.body.data.attributes.key);
    // Key A: 1 request spent on the create, 4 more admitted, the next 16 refused by its own limit.
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await a.get('/v1/support?limit=1')).status);
    expect(statuses).toEqual([...Array(4).fill(200), ...Array(16).fill(429)]);
    // The project has spent 5 of 8: key B gets the 3 left, then the project's limit answers.
    const other: number[] = [];
    for (let i = 0; i < 4; i++) other.push((await b.get('/v1/support?limit=1')).status);
    expect(other).toEqual([200, 200, 200, 429]);
  });
});
