import type { Filter } from '../../libs/readstore/src/read-store.port';
import { consoleSessionDecider, consoleSessionStream, type OpenConsoleSession } from '../../libs/domain/consoles/console-session';
import { logRecorder, projected } from '../../test/support/projector';
import { consoleSessionsProjection } from './console-sessions.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const open = (sessionId: string, resourceId = 'i1', m = 0, resourceType: 'instance' | 'server' = 'instance'): OpenConsoleSession => ({
  type: 'OpenConsoleSession',
  sessionId,
  projectId: 'p1',
  resourceType,
  resourceId,
  resourceStatus: 'active',
  tokenHash: `hash-of-token-${sessionId}`,
  expiresAt: at(m + 15),
  now: at(m),
  openedBy: 'apikey:k1',
});

describe('console sessions read model', () => {
  it('opens a session without its token (not even its hash), then closes it with the reason', async () => {
    const log = logRecorder();
    const s = log.decided(consoleSessionStream('s1'), consoleSessionDecider);
    const model = await projected(consoleSessionsProjection);
    const opened = s(open('s1'));
    expect(opened[0].data).toHaveProperty('tokenHash');
    await model.handle(...opened);
    expect(await model.get('s1')).toEqual({ id: 's1', _position: 1, projectId: 'p1', resourceType: 'instance', resourceId: 'i1', protocol: 'vnc', status: 'open', expiresAt: at(15), openedBy: 'apikey:k1', closedAt: null, closeReason: null, createdAt: at(0), updatedAt: at(0) });
    expect(JSON.stringify(await model.all())).not.toContain('hash-of-token');

    await model.handle(...s({ type: 'CloseConsoleSession', reason: 'resource-stopped', strict: false, now: at(4), closedBy: 'system' }));
    expect(await model.get('s1')).toEqual({ id: 's1', _position: 2, projectId: 'p1', resourceType: 'instance', resourceId: 'i1', protocol: 'vnc', status: 'closed', expiresAt: at(15), openedBy: 'apikey:k1', closedAt: at(4), closeReason: 'resource-stopped', createdAt: at(0), updatedAt: at(4) });
  });

  it('serves the expiry timer (open sessions by due time) and the closing process (a resource\'s open sessions)', async () => {
    const log = logRecorder();
    const model = await projected(consoleSessionsProjection);
    const a = log.decided(consoleSessionStream('a'), consoleSessionDecider);
    const b = log.decided(consoleSessionStream('b'), consoleSessionDecider);
    const c = log.decided(consoleSessionStream('c'), consoleSessionDecider);
    const d = log.decided(consoleSessionStream('d'), consoleSessionDecider);
    await model.handle(
      ...a(open('a', 'i1', 5)),
      ...b(open('b', 'i1', 1)),
      ...c(open('c', 'srv1', 3, 'server')),
      ...d(open('d', 'i1', 0)),
      ...d({ type: 'CloseConsoleSession', reason: 'closed', strict: true, now: at(2), closedBy: 'apikey:k1' }),
    );
    const ids = async (filter: Filter, field: string) => (await model.collection.find({ filter, sort: [{ field, direction: 1 }] })).items.map((x) => x.id);
    expect(await ids({ status: 'open' }, 'expiresAt')).toEqual(['b', 'c', 'a']);
    expect(await ids({ resourceId: 'i1', status: 'open' }, 'createdAt')).toEqual(['b', 'a']);
    expect(await model.get('c')).toMatchObject({ resourceType: 'server', protocol: 'ipmi-sol' });
    expect(await ids({ projectId: 'p1', status: 'closed' }, 'createdAt')).toEqual(['d']);
  });

  it('replays a batch after a restart to the same documents, and makes nothing of a close it never saw opened', async () => {
    const log = logRecorder();
    const s = log.decided(consoleSessionStream('s1'), consoleSessionDecider);
    const events = [
      log.stream(consoleSessionStream('ghost'), {})('consoles.ConsoleSessionClosed.v1', { sessionId: 'ghost', projectId: 'p1', reason: 'expired', closedAt: at(0), closedBy: 'system' }),
      ...s(open('s1')),
      ...s({ type: 'CloseConsoleSession', reason: 'expired', strict: false, now: at(15), closedBy: 'system' }),
    ];
    const model = await projected(consoleSessionsProjection);
    await model.handle(...events);
    const once = await model.all();
    model.restart();
    await model.handle(events[1]);
    await model.handle(...events);
    expect(await model.all()).toEqual(once);
    expect(once.map((x) => [x.id, x.status, x.closeReason])).toEqual([['s1', 'closed', 'expired']]);
  });
});
