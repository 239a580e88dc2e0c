import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReadStoreCheckpointStore } from '../../libs/subscriptions/src/checkpoint-store';
import { startSmtpSink, type SmtpSink } from '../support/smtp';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';

interface Issue {
  number: number;
  title: string;
  body: string;
  comments: Array<{ id: number; body: string }>;
}

/**
 * A GitHub-compatible issues API on loopback (plain node:http): creates issues and comments, lists
 * them, records every request with its Authorization header, and can be told to fail.
 */
async function startTracker(repo: string) {
  const issues: Issue[] = [];
  const requests: Array<{ method: string; path: string; authorization: string | undefined }> = [];
  const state = { down: false, failNext: 0, loseNextAnswer: 0, downAfterLoss: false, nextId: 1000 };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://tracker');
      requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
      if (state.down) return send(res, 503, { message: 'down' });
      const prefix = `/repos/${repo}/issues`;
      if (!url.pathname.startsWith(prefix)) return send(res, 404, { message: 'Not Found' });
      if (req.method === 'POST' && state.failNext > 0) {
        state.failNext--;
        return send(res, 503, { message: 'try later' });
      }
      const rest = url.pathname.slice(prefix.length);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      // Does the work, then answers 502 as a proxy that lost the answer would: the outcome is unknown to the caller.
      const answer = (status: number, payload: unknown) => {
        if (req.method === 'POST' && state.loseNextAnswer > 0) {
          state.loseNextAnswer--;
          // And stays down from then on (until told otherwise), so no retry can learn the outcome.
          if (state.downAfterLoss) state.down = true;
          return send(res, 502, { message: 'bad gateway' });
        }
        send(res, status, payload);
      };
      if (rest === '' && req.method === 'POST') {
        const issue: Issue = { number: issues.length + 1, title: body.title, body: body.body, comments: [] };
        issues.push(issue);
        return answer(201, { number: issue.number, title: issue.title, body: issue.body });
      }
      if (rest === '' && req.method === 'GET') return send(res, 200, issues.map((i) => ({ number: i.number, title: i.title, body: i.body })));
      const m = /^\/(\d+)\/comments$/.exec(rest);
      const issue = m ? issues.find((i) => i.number === Number(m[1])) : undefined;
      if (!issue) return send(res, 404, { message: 'Not Found' });
      if (req.method === 'POST') {
        const comment = { id: state.nextId++, body: body.body };
        issue.comments.push(comment);
        return answer(201, comment);
      }
      return send(res, 200, issue.comments);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    issues,
    requests,
    state,
    issuesFor: (number: string) => issues.filter((i) => i.title.includes(`[${number}]`)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each<Profile>(['embedded', 'server'])('support ticket forwarding by email and to the issue tracker (%s profile)', (profile) => {
  const token = `ghp_${'s3cr3tTrackerToken'.repeat(2)}`;
  const forwardTo = 'support-desk@example.com';
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let smtp: SmtpSink;
  let tracker: Awaited<ReturnType<typeof startTracker>>;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    tracker = await startTracker('acme/support');
    srv = await startTestServer(profile, { SMTP_URL: smtp.url, SUPPORT_FORWARD_EMAIL: forwardTo, TRACKER_URL: tracker.url, TRACKER_REPO: 'acme/support', TRACKER_TOKEN: token });
    api = srv.as(srv.bootstrap.apiKey);
  });
  afterAll(async () => {
    await srv?.stop();
    await tracker?.close();
    await smtp?.close();
  });

  const allEvents = () => srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 });
  const forwardEvents = async (type: string, ticketId: string) => (await allEvents()).filter((e) => e.type === type && (e.data as { ticketId: string }).ticketId === ticketId);

  it('mails a new ticket and its messages, opens an issue for the ticket and comments each message, with the bearer token', async () => {
    const created = await api.post('/v1/support', { subject: 'Database unreachable', message: 'db-1 refuses connections since 09:00', priority: 'urgent', category: 'databases' });
    expect(created.status).toBe(201);
    const { id, attributes } = created.body.data;
    const number: string = attributes.number;

    const mail = await smtp.waitFor((m) => m.subject === `[${number}] Database unreachable`);
    expect(mail.text).toContain('db-1 refuses connections since 09:00');
    expect(mail.text).toContain('Priority: urgent');
    expect((mail.to as { text: string }).text).toBe(forwardTo);
    expect(mail.messageId).toMatch(/^<ticket-forward-.+@cloud-provisioning\.invalid>$/);

    const [issue] = await eventually(async () => tracker.issuesFor(number), (l) => l.length === 1);
    expect(issue.title).toBe(`[${number}] Database unreachable`);
    expect(issue.body).toContain(number);
    expect(issue.body).toContain('db-1 refuses connections since 09:00');
    const creates = tracker.requests.filter((r) => r.method === 'POST' && r.path === '/repos/acme/support/issues');
    expect(creates.length).toBeGreaterThanOrEqual(1);
    expect(creates.every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
    const forwarded = await eventually(() => forwardEvents('support.TicketForwarded.v1', id), (l) => l.length === 2);
    expect(forwarded.map((e) => e.data).sort((a, b) => String(a.channel).localeCompare(String(b.channel)))).toMatchObject([
      { channel: 'email', number, issueNumber: null, mailMessageId: mail.messageId },
      { channel: 'tracker', number, issueNumber: issue.number },
    ]);

    const reply = await api.post(`/v1/support/${id}/messages`, { content: 'Still failing after the restart' });
    expect(reply.status).toBe(200);
    const replyMail = await smtp.waitFor((m) => m.subject === `Re: [${number}] Database unreachable`);
    expect(replyMail.text).toContain('Still failing after the restart');
    expect(replyMail.messageId).not.toBe(mail.messageId);
    // The reply answers the ticket's mail: one thread at the desk.
    expect([replyMail.inReplyTo, [replyMail.references].flat()]).toEqual([mail.messageId, [mail.messageId]]);
    await eventually(async () => issue.comments, (c) => c.length === 1);
    expect(issue.comments[0].body).toContain('Still failing after the restart');
    const comment = tracker.requests.find((r) => r.method === 'POST' && r.path === `/repos/acme/support/issues/${issue.number}/comments`);
    expect(comment?.authorization).toBe(`Bearer ${token}`);
    const messageForwards = await eventually(() => forwardEvents('support.TicketMessageForwarded.v1', id), (l) => l.length === 2);
    expect(messageForwards.find((e) => e.data.channel === 'tracker')?.data).toMatchObject({ issueNumber: issue.number, commentId: issue.comments[0].id });

    // Forwarding is the desk's bookkeeping: endpoints cannot subscribe to it, only to the ticket's own events.
    const published = (await api.get('/v1/notifications/events?resource=ticket&limit=100')).body.data.map((d: { attributes: { action: string } }) => d.attributes.action);
    expect(published).toContain('opened');
    expect(published.filter((a: string) => a.includes('forward'))).toEqual([]);

    // The token is in no event, log line or answer.
    expect(JSON.stringify(await allEvents())).not.toContain(token);
    expect(srv.logs()).not.toContain(token);
    expect(JSON.stringify((await api.get(`/v1/support/${id}`)).body)).not.toContain(token);
  });

  it('answers 201 while the tracker is down, and forwards once it is back', async () => {
    tracker.state.down = true;
    const baseline = tracker.requests.length;
    const created = await api.post('/v1/support', { subject: 'Tracker outage ticket', message: 'opened while the tracker is down' });
    expect(created.status).toBe(201);
    const number: string = created.body.data.attributes.number;
    // The mail channel is not held up by the tracker's.
    await smtp.waitFor((m) => m.subject === `[${number}] Tracker outage ticket`);
    // Tried, then retried while down (the subscription's backoff): each retry first asks what the
    // attempt before it created (a GET), and is refused like the create.
    const tried = await eventually(async () => tracker.requests.slice(baseline).filter((r) => r.path === '/repos/acme/support/issues'), (l) => l.length >= 3);
    expect(tried.slice(0, 3).map((r) => r.method)).toEqual(['POST', 'GET', 'GET']);
    expect(tracker.issuesFor(number)).toHaveLength(0);
    tracker.state.down = false;
    await eventually(async () => tracker.issuesFor(number), (l) => l.length === 1);
    await eventually(() => forwardEvents('support.TicketForwarded.v1', created.body.data.id), (l) => l.length === 2);
    expect(tracker.issuesFor(number)).toHaveLength(1);
  });

  it('retries a tracker failing twice (503) and an SMTP server failing twice (451): exactly one issue and one mail', async () => {
    tracker.state.failNext = 2;
    smtp.failNext(2);
    const postsBefore = tracker.requests.filter((r) => r.method === 'POST' && r.path === '/repos/acme/support/issues').length;
    const created = await api.post('/v1/support', { subject: 'Flaky receivers', message: 'retried until they answer' });
    expect(created.status).toBe(201);
    const number: string = created.body.data.attributes.number;
    await eventually(async () => tracker.issuesFor(number), (l) => l.length === 1);
    await eventually(() => forwardEvents('support.TicketForwarded.v1', created.body.data.id), (l) => l.length === 2);
    expect(tracker.issuesFor(number)).toHaveLength(1);
    expect(tracker.requests.filter((r) => r.method === 'POST' && r.path === '/repos/acme/support/issues').length - postsBefore).toBe(3);
    await smtp.waitFor((m) => m.subject === `[${number}] Flaky receivers`);
    expect(smtp.messages.filter((m) => m.subject === `[${number}] Flaky receivers`)).toHaveLength(1);
    expect(tracker.state.failNext).toBe(0);
  });

  it('does not create a second issue or comment when an answer was lost: the retry finds what the first attempt made', async () => {
    tracker.state.loseNextAnswer = 1;
    const created = await api.post('/v1/support', { subject: 'Lost answer', message: 'the tracker made it but the answer was lost' });
    const number: string = created.body.data.attributes.number;
    const forwarded = await eventually(() => forwardEvents('support.TicketForwarded.v1', created.body.data.id), (l) => l.some((e) => e.data.channel === 'tracker'));
    const [issue] = tracker.issuesFor(number);
    expect(tracker.issuesFor(number)).toHaveLength(1);
    expect(forwarded.find((e) => e.data.channel === 'tracker')?.data.issueNumber).toBe(issue.number);
    expect(tracker.requests.some((r) => r.method === 'GET' && r.path === '/repos/acme/support/issues')).toBe(true);

    tracker.state.loseNextAnswer = 1;
    await api.post(`/v1/support/${created.body.data.id}/messages`, { content: 'a reply whose answer is lost' });
    const messageForwards = await eventually(() => forwardEvents('support.TicketMessageForwarded.v1', created.body.data.id), (l) => l.some((e) => e.data.channel === 'tracker'));
    expect(issue.comments).toHaveLength(1);
    expect(messageForwards.find((e) => e.data.channel === 'tracker')?.data.commentId).toBe(issue.comments[0].id);
  });

  it('records the forwards on the support topic stream category and never forwards a ticket twice on replay', async () => {
    // Every ticket and message so far settled on both channels before the counts are taken.
    const settled = (events: Array<{ type: string; id: string; data: Record<string, unknown> }>) => {
      const sources = events.filter((e) => e.type === 'support.TicketOpened.v1' || e.type === 'support.TicketMessageAdded.v1').map((e) => e.id);
      const done = new Set(events.filter((e) => /Forwarded|Abandoned/.test(e.type)).map((e) => `${String(e.data.channel)}/${String(e.data.sourceEventId)}`));
      return sources.length > 0 && sources.every((id) => done.has(`email/${id}`) && done.has(`tracker/${id}`));
    };
    const events = await eventually(allEvents, settled);
    const forwardStreams = new Set(events.filter((e) => e.type.startsWith('support.Ticket') && e.type.includes('Forward')).map((e) => e.streamId));
    expect([...forwardStreams].every((s) => /^ticket-forwarding-(email|tracker)-/.test(s))).toBe(true);
    const issuesBefore = tracker.issues.length;
    const mailsBefore = smtp.messages.length;
    // Restarting the process managers from an earlier checkpoint (as after a crash) hands them the same events again.
    const checkpoints = new ReadStoreCheckpointStore(srv.platform.reads);
    const rewind = async (name: string) => {
      const runner = srv.platform.processes.saga(name)!;
      await runner.stop();
      await checkpoints.save(name, 0);
      await runner.start();
      return runner;
    };
    const saga = await rewind('saga:support-forward-tracker');
    const mailSaga = await rewind('saga:support-forward-email');
    const head = await srv.platform.events.headPosition();
    expect(await saga.waitFor(head, 20000)).toBe(true);
    expect(await mailSaga.waitFor(head, 20000)).toBe(true);
    expect(tracker.issues.length).toBe(issuesBefore);
    expect(smtp.messages.length).toBe(mailsBefore);
  });
});

describe.each<Profile>(['embedded', 'server'])('support ticket forwarding across a restart (%s profile)', (profile) => {
  let first: TestServer | null = null;
  let second: TestServer | null = null;
  let smtp: SmtpSink;
  let tracker: Awaited<ReturnType<typeof startTracker>>;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    tracker = await startTracker('acme/desk');
    first = await startTestServer(profile, { SMTP_URL: smtp.url, SUPPORT_FORWARD_EMAIL: 'desk@example.com', TRACKER_URL: tracker.url, TRACKER_REPO: 'acme/desk', TRACKER_TOKEN: 'tok-restart-0123456789' });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await tracker?.close();
    await smtp?.close();
  });

  it('an issue created just before the process stopped, its answer lost, is recorded by the next process and not created again', async () => {
    if (!first) throw new Error('the first server did not start');
    const env = first.env;
    // The tracker makes the issue but the answer is lost, then it is down: the process cannot learn the outcome.
    tracker.state.loseNextAnswer = 1;
    tracker.state.downAfterLoss = true;
    const lost = () => tracker.requests.some((r) => r.method === 'POST');
    const created = await first.as(first.bootstrap.apiKey).post('/v1/support', { subject: 'Across a restart', message: 'forwarded by the next process' });
    expect(created.status).toBe(201);
    const number: string = created.body.data.attributes.number;
    await eventually(async () => lost(), (v) => v);
    expect(tracker.state.down).toBe(true);
    const stream = `ticket-forwarding-tracker-${created.body.data.id}`;
    const recorded = async (server: TestServer) => (await server.platform.events.readStream(stream)).map((e) => e.type);
    await eventually(() => recorded(first!), (types) => types.includes('support.TicketForwardStarted.v1'));
    expect(await recorded(first)).not.toContain('support.TicketForwarded.v1');
    await first.stop({ keepData: true });
    first = null;

    tracker.state.down = false;
    second = await startTestServer(profile, env);
    await eventually(() => recorded(second!), (types) => types.includes('support.TicketForwarded.v1'));
    expect(tracker.issuesFor(number)).toHaveLength(1);
    expect(tracker.requests.filter((r) => r.method === 'POST' && r.path === '/repos/acme/desk/issues')).toHaveLength(1);
    const forwarded = (await second.platform.events.readStream(stream)).filter((e) => e.type === 'support.TicketForwarded.v1');
    expect(forwarded.map((e) => e.data.issueNumber)).toEqual([tracker.issuesFor(number)[0].number]);
    // The mail went once, by the first process or the second.
    await smtp.waitFor((m) => m.subject === `[${number}] Across a restart`);
    await eventually(async () => (await second!.platform.events.readStream(`ticket-forwarding-email-${created.body.data.id}`)).length, (n) => n === 1);
    expect(smtp.messages.filter((m) => m.subject === `[${number}] Across a restart`)).toHaveLength(1);
  });
});
