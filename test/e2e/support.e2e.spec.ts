import { requireEngine } from '../engines';
import { readTopicUntil } from '../support/kafka';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;
const ids = (body: { data: { id: string }[] }) => body.data.map((t) => t.id);
const pointers = (body: { errors: { source?: { pointer?: string } }[] }) => body.errors.map((e) => e.source?.pointer).sort();

describe.each<Profile>(['embedded', 'server'])('support tickets (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: Api;
  let other: Api;

  beforeAll(async () => {
    srv = await startTestServer(profile, { BOOTSTRAP_OWNER_EMAIL: 'ops-owner@example.com' });
    owner = srv.as(srv.bootstrap.apiKey);
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `support-other-${profile}` });
    expect(project.status).toBe(201);
    other = srv.as(project.body.included[0].attributes.key);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  let first: { id: string; attributes: Record<string, unknown> };

  it('opens tickets (201, status open, priority medium by default) numbered TCK-000001 onwards per project, and gets them', async () => {
    const created = await owner.post('/v1/support', { subject: 'Volume stuck attaching', message: 'vol-1 has been attaching for an hour' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'support-tickets',
      attributes: { number: 'TCK-000001', subject: 'Volume stuck attaching', message: 'vol-1 has been attaching for an hour', status: 'open', priority: 'medium', category: null, replies: 0, messages: [] },
    });
    expect(created.body.data.attributes.author).toMatchObject({ isSupport: false });
    first = created.body.data;
    const got = await owner.get(`/v1/support/${first.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(created.body.data);

    const second = await owner.post('/v1/support', { subject: 'Invoice question', message: 'Why two charges?', priority: 'high', category: 'billing' });
    expect(second.status).toBe(201);
    expect(second.body.data.attributes).toMatchObject({ number: 'TCK-000002', priority: 'high', category: 'billing' });
    // another project's sequence starts at its own first number
    expect((await other.post('/v1/support', { subject: 'Hello', message: 'First of ours' })).body.data.attributes.number).toBe('TCK-000001');
  });

  it('gives concurrent creates (eight at once) distinct, consecutive numbers', async () => {
    const before = (await owner.get('/v1/support?limit=1')).body.meta.total as number;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => owner.post('/v1/support', { subject: `Burst ${i}`, message: 'at the same time', priority: 'low' })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    const numbers = answers.map((a) => a.body.data.attributes.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 8 }, (_, i) => `TCK-${String(before + i + 1).padStart(6, '0')}`));
  });

  it('lists the project\'s tickets newest first with status and priority filters, sorts and pages', async () => {
    const all = await owner.get('/v1/support?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.meta).toMatchObject({ page: 1, total: 10 });
    expect(all.body.data[all.body.data.length - 1].id).toBe(first.id);
    expect(all.body.data[0].attributes).not.toHaveProperty('messages');
    expect(all.body.data[0].attributes).toHaveProperty('replies', 0);

    const low = await owner.get('/v1/support?priority=low&limit=3');
    expect(low.body.meta).toEqual({ page: 1, limit: 3, total: 8, totalPages: 3 });
    expect(low.body.links.next).toContain('priority=low');
    const page3 = await owner.get('/v1/support?priority=low&limit=3&page=3');
    expect(page3.body.data).toHaveLength(2);
    expect(page3.body.links).not.toHaveProperty('next');
    expect(ids((await owner.get('/v1/support?priority=high')).body).length).toBe(1);

    const patched = await owner.patch(`/v1/support/${first.id}`, { status: 'pending' });
    expect(patched.status).toBe(200);
    expect(ids((await owner.get('/v1/support?status=pending')).body)).toEqual([first.id]);
    expect(ids((await owner.get('/v1/support?status=pending&priority=low')).body)).toEqual([]);
    const oldest = await owner.get('/v1/support?sort=createdAt&limit=1');
    expect(oldest.body.data[0].id).toBe(first.id);

    expect((await owner.get('/v1/support?status=waiting')).body.errors[0].code).toBe('INVALID_QUERY');
    expect((await owner.get('/v1/support?sort=subject')).status).toBe(400);
    expect((await owner.get('/v1/support?limit=101')).status).toBe(400);
    // the other project lists only its own ticket
    expect((await other.get('/v1/support')).body.meta.total).toBe(1);
  });

  it('adds messages in order, counts them in replies; a reply reopens a pending ticket', async () => {
    const one = await owner.post(`/v1/support/${first.id}/messages`, { content: 'Still attaching.' });
    expect(one.status).toBe(200);
    expect(one.body.data.attributes).toMatchObject({ replies: 1, status: 'open' });
    expect(one.body.data.attributes.messages).toEqual([{ id: expect.any(String), content: 'Still attaching.', author: expect.objectContaining({ isSupport: false }), timestamp: expect.any(String) }]);
    const two = await owner.post(`/v1/support/${first.id}/messages`, { content: 'Now it failed.' });
    expect(two.body.data.attributes.replies).toBe(2);
    expect(two.body.data.attributes.messages.map((m: { content: string }) => m.content)).toEqual(['Still attaching.', 'Now it failed.']);
    const got = await owner.get(`/v1/support/${first.id}`);
    expect(got.body.data).toEqual(two.body.data);
    const listed = (await owner.get('/v1/support?sort=createdAt&limit=1')).body.data[0];
    expect(listed.attributes.replies).toBe(2);
  });

  it('PATCHes status, priority and category; closed is final (409 INVALID_STATE)', async () => {
    const resolved = await owner.patch(`/v1/support/${first.id}`, { status: 'resolved', priority: 'urgent', category: 'storage' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data.attributes).toMatchObject({ status: 'resolved', priority: 'urgent', category: 'storage', replies: 2 });
    expect(resolved.body.data.attributes.messages).toHaveLength(2);
    const reopened = await owner.patch(`/v1/support/${first.id}`, { status: 'open', category: null });
    expect(reopened.body.data.attributes).toMatchObject({ status: 'open', category: null });
    const same = await owner.patch(`/v1/support/${first.id}`, {});
    expect(same.status).toBe(200);
    expect(same.body.data.attributes.updatedAt).toBe(reopened.body.data.attributes.updatedAt);

    expect((await owner.patch(`/v1/support/${first.id}`, { status: 'closed' })).body.data.attributes.status).toBe('closed');
    for (const [path, body] of [[`/v1/support/${first.id}`, { status: 'open' }], [`/v1/support/${first.id}`, { priority: 'low' }]] as const) {
      const refused = await owner.patch(path, body);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0]).toMatchObject({ code: 'INVALID_STATE', detail: expect.stringContaining('TCK-000001 is closed') });
    }
    const reply = await owner.post(`/v1/support/${first.id}/messages`, { content: 'one more thing' });
    expect(reply.status).toBe(409);
    expect(reply.body.errors[0].code).toBe('INVALID_STATE');
    const after = await owner.get(`/v1/support/${first.id}`);
    expect(after.body.data.attributes).toMatchObject({ status: 'closed', priority: 'urgent', replies: 2 });
  });

  it("answers 404 for another project's ticket and unknown ids, on every route", async () => {
    for (const id of [first.id, 'no-such-ticket']) {
      expect((await other.get(`/v1/support/${id}`)).status).toBe(404);
      expect((await other.patch(`/v1/support/${id}`, { priority: 'low' })).status).toBe(404);
      const msg = await other.post(`/v1/support/${id}/messages`, { content: 'hi' });
      expect(msg.status).toBe(404);
      expect(msg.body.errors[0].code).toBe('NOT_FOUND');
    }
  });

  it('answers 400 with a pointer per offending field', async () => {
    const bad = await owner.post('/v1/support', { subject: 'x'.repeat(201), message: '', priority: 'critical', category: 7 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('BAD_REQUEST');
    expect(pointers(bad.body)).toEqual(['/category', '/message', '/priority', '/subject']);
    expect(pointers((await owner.post('/v1/support', { message: 'no subject' })).body)).toEqual(['/subject']);
    expect(pointers((await owner.post('/v1/support', { subject: '   ', message: 'blank subject' })).body)).toEqual(['/subject']);
    const jsonApi = await owner.post('/v1/support', { data: { type: 'support-tickets', attributes: { subject: 'ok', message: 'x'.repeat(10001) } } });
    expect(pointers(jsonApi.body)).toEqual(['/data/attributes/message']);
    expect(pointers((await owner.patch(`/v1/support/${first.id}`, { status: 'waiting', priority: 'none' })).body)).toEqual(['/priority', '/status']);
    expect(pointers((await owner.post(`/v1/support/${first.id}/messages`, { content: 'x'.repeat(10001) })).body)).toEqual(['/content']);
    expect(pointers((await owner.post(`/v1/support/${first.id}/messages`, {})).body)).toEqual(['/content']);
    // nothing was opened by the refused requests
    expect((await owner.get('/v1/support?limit=1')).body.meta.total).toBe(10);
  });

  it("names an API key's messages by the key, with the project owner's email (BOOTSTRAP_OWNER_EMAIL for the bootstrap project): email is never null (DECISIONS 17)", async () => {
    const written = async (api: Api, keyName: string) => {
      const key = await api.post('/v1/api-keys', { name: keyName, role: 'admin' });
      expect(key.status).toBe(201);
      const as = srv.as(key.body.data.attributes.key);
      const opened = await as.post('/v1/support', { subject: 'Who wrote this', message: 'A key did' });
      expect(opened.status).toBe(201);
      const replied = await as.post(`/v1/support/${opened.body.data.id}/messages`, { content: 'Still the key' });
      expect(replied.status).toBe(200);
      return [opened.body.data.attributes.author, replied.body.data.attributes.messages.at(-1).author];
    };
    // The bootstrap project has no owner member: its owner's address is configured.
    for (const author of await written(owner, 'Ops bot')) expect(author).toEqual({ name: 'Ops bot', email: 'ops-owner@example.com', isSupport: false });
    // A project with an owner member: the customer record's owner email.
    expect((await other.post('/v1/iam/members', { email: 'finance@example.com', role: 'owner' })).status).toBe(201);
    for (const author of await written(other, 'Billing robot')) expect(author).toEqual({ name: 'Billing robot', email: 'finance@example.com', isSupport: false });
  });
});

describe('support events reach cloud.support.events.v1 (server profile)', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer('server');
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("publishes a ticket's life keyed by its stream, and the project's number sequence", async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const created = await api.post('/v1/support', { subject: 'Topic', message: 'please forward' });
    expect(created.status).toBe(201);
    expect((await api.post(`/v1/support/${created.body.data.id}/messages`, { content: 'more' })).status).toBe(200);
    expect((await api.patch(`/v1/support/${created.body.data.id}`, { status: 'closed', priority: 'high' })).status).toBe(200);
    const ticket = `ticket-${created.body.data.id}`;
    const numbers = `ticket-numbers-${srv.bootstrap.scope}`;
    const { types, keys } = await readTopicUntil(requireEngine('KAFKA_BROKERS').split(','), srv.env.KAFKA_TOPIC_PREFIX, 'support', (log) =>
      // The two streams are keyed apart, so they may sit on different partitions read at different
      // paces: wait for both rather than for the ticket alone.
      (log.types.get(ticket) ?? []).includes('support.TicketStatusChanged.v1') && log.types.has(numbers),
    );
    expect(types.get(ticket)).toEqual(['support.TicketOpened.v1', 'support.TicketMessageAdded.v1', 'support.TicketPriorityChanged.v1', 'support.TicketStatusChanged.v1']);
    expect(types.get(numbers)).toEqual(['support.TicketNumberAssigned.v1']);
    expect(keys).toEqual(new Set([ticket, numbers]));
  }, 90000);
});
